from tether_sdk.solution import CapabilityError, call_capability


def translate(sentence):
    """Translate word by word with call_capability("lookup", word); unknown words become "?"."""
    raise NotImplementedError


def ask_oracle():
    """Call the "slow_oracle" capability; return the error code if it fails."""
    raise NotImplementedError
