"""BPE's cousins, written to be read beside it: ``wordpiece`` (BERT's subword trainer,
likelihood and count scores) and ``unigram`` (the Unigram language model with Viterbi
segmentation, as in SentencePiece).
"""
