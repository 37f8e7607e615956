def translate(sentence):
    return sentence  # never asks the evaluator
