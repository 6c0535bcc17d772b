"""Who is called what: the book-level names pass (evidence in the words, stores, labels)."""
