"""Statistics shared by every benchmark: bootstrap intervals, classification metrics, and
correlation and agreement between raters."""
