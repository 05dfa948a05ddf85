"""The one build step pyproject.toml cannot say: the `inspect_culture_lm_eval_tasks.pth` at the
root of site-packages, so that `lm_eval --tasks care_zh` finds our tasks with no flag
(inspect_culture/lm_eval_tasks/discovery.py). The wheel lists it in RECORD like every other file,
so `pip uninstall inspect-culture` removes it. An editable install (`pip install -e .`, what
scripts/setup-venv and scripts/compat run) gets it too, so the documented commands run as written
in a checkout."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH_SOURCE = Path(__file__).resolve().parent / "inspect_culture" / "lm_eval_tasks" / "discovery.pth"
PTH_NAME = "inspect_culture_lm_eval_tasks.pth"  # discovery.PTH_NAME


class build_py_with_pth(build_py):
    """build_py, plus the .pth copied to the root of the build (the wheel's purelib root)."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            target = str(Path(self.build_lib, PTH_NAME))
            self.copy_file(str(PTH_SOURCE), target, preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if self.editable_mode:
            return outputs
        return [*outputs, str(Path(self.build_lib, PTH_NAME))]


class editable_wheel_with_pth(editable_wheel):
    """The editable wheel: setuptools writes what lies in its unpacked folder into it (namespace
    .pth files go there through this method); the .pth goes there too."""

    def _install_namespaces(self, installation_dir, pth_prefix):  # type: ignore[no-untyped-def]
        super()._install_namespaces(installation_dir, pth_prefix)
        shutil.copyfile(PTH_SOURCE, Path(installation_dir, PTH_NAME))


setup(cmdclass={"build_py": build_py_with_pth, "editable_wheel": editable_wheel_with_pth})
