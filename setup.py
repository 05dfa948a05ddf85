"""The one build step pyproject.toml cannot say: the wheel's `inspect_culture_lm_eval_tasks.pth`
at the root of site-packages, so that `lm_eval --tasks care_zh` finds our tasks with no flag
(inspect_culture/lm_eval_tasks/discovery.py). It is listed in the wheel's RECORD like every other
file, so `pip uninstall inspect-culture` removes it."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PTH_SOURCE = Path("inspect_culture", "lm_eval_tasks", "discovery.pth")
PTH_NAME = "inspect_culture_lm_eval_tasks.pth"  # discovery.PTH_NAME


class build_py_with_pth(build_py):
    """build_py, plus the .pth copied to the root of the build (the wheel's purelib root)."""

    def run(self) -> None:
        super().run()
        self.copy_file(str(PTH_SOURCE), str(Path(self.build_lib, PTH_NAME)), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib, PTH_NAME))]


setup(cmdclass={"build_py": build_py_with_pth})
