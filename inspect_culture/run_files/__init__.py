"""Reading and exporting finished runs: Inspect logs, lm-eval sample files, CultureSynth baseline
export and judge agreement. Used by the CLI after a run, never during one."""


class RunsError(ValueError):
    """A problem with the given runs that the user can fix; the message is one line."""
