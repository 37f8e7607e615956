import os

from tether_sdk.solution import call_capability


def ask(prompt):
    return call_capability("request_llm_completion", prompt)


def sees(socket_path):
    return {"env": os.environ.get("TETHER_LM_ADDR"), "socket": os.path.exists(socket_path)}
