"""The learned answer stage: a sentence ranker and a refusal probability trained on the structure of real data.

`features` turns scored evidence into general features (similarity, overlap, answer type, the unit's role in its
conversation, recency, source shape, length); `model` loads a small JSON model with numpy and checks its sha256;
`examples` reads training questions and their resolving units from an index's conversations (used by
`scripts/train_answer_model.py`, which fits the model with scikit-learn).
"""

from briefing.ask.learned.model import AnswerModel, ModelError, load_model, shipped_model

__all__ = ["AnswerModel", "ModelError", "load_model", "shipped_model"]
