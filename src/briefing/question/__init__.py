"""The question: constraints, time expressions, word lists and the parsed `Question` every stage reads."""
