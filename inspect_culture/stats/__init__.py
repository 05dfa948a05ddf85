"""Statistics shared by every benchmark: bootstrap intervals, classification, rater agreement."""
