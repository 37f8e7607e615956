"""Run rlm's own LMHandler with a scripted client, for tether's Go client and benchmarks.

Usage: python rlm_handler.py
Prints the port on the first line, serves until standard input closes.
The mock answers with the prompt's text (the last message's content for a
message list) and fails prompts containing "boom". Needs PyPI rlms==0.1.3.
"""
import sys

from rlm.clients.base_lm import BaseLM
from rlm.core.lm_handler import LMHandler
from rlm.core.types import ModelUsageSummary, UsageSummary


class EchoLM(BaseLM):
    def __init__(self, model_name):
        super().__init__(model_name=model_name)
        self.calls = 0

    def _answer(self, prompt):
        text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
        if "boom" in text:
            raise RuntimeError("scripted failure")
        self.calls += 1
        return text

    def completion(self, prompt):
        return self._answer(prompt)

    async def acompletion(self, prompt):
        return self._answer(prompt)

    def get_usage_summary(self):
        return UsageSummary(model_usage_summaries={self.model_name: self.get_last_usage()})

    def get_last_usage(self):
        return ModelUsageSummary(total_calls=1, total_input_tokens=1, total_output_tokens=1)


def main():
    handler = LMHandler(client=EchoLM("rlm-echo"))
    host, port = handler.start()
    print(port, flush=True)
    sys.stdin.read()
    handler.stop()


if __name__ == "__main__":
    main()
