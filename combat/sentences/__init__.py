"""The sentences of each family of facts (combat/words.py registers every module here)."""
