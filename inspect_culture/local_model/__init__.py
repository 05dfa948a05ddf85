"""A local SmolLM2 (served by llama.cpp) and the main job that runs CARE on it in both harnesses."""
