"""The toy corpus that the tests of explain, explain for any model and shapley train their pipelines on."""

DOCS = [
    "good food and good service",
    "bad food, bad service",
    "The food was good, the staff friendly",
    "the staff was rude and the food cold",
    "great place, great food",
    "terrible place, never again",
    "friendly staff, good wine",
    "cold food and rude staff",
]
LABELS = [1, 0, 1, 0, 1, 0, 1, 0]
#: documents with words that share a column under lower-casing ("The"/"the") and repeated words
TEXTS = ["The food was good, the staff was rude", "Good food, bad service, good wine", "never again: cold food"]
