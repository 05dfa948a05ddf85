# Sourced by scripts/run-tests and scripts/compat. The published-rows tests check every
# transcribed number against the papers' text, which is not redistributed: the project's shared
# copy is used when this machine has one (they skip, saying so, where it has none).
for papers in ../shared/papers /work/shared/papers; do
  if [ -z "${INSPECT_CULTURE_PAPERS:-}" ] && [ -d "$papers" ]; then
    export INSPECT_CULTURE_PAPERS="$(cd "$papers" && pwd)"
  fi
done
