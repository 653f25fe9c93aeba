"""Run inside the Inspect virtualenv: evaluate an exported task with Inspect's mock model, whose
answers depend on the question (so some are right and some wrong). argv: TASK_FILE LOG_DIR.
Prints the log's location, status, metrics and every sample's score, read back with Inspect."""

import json
import sys

from inspect_ai import eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model


def respond(messages, tools, tool_choice, config):
    prompt = messages[-1].text
    if "How many" in prompt or "number of" in prompt:
        text = "There are 2 pieces."
    elif "row" in prompt.lower():
        text = "It is on row 1."
    elif "yes or no" in prompt:
        text = "Yes."
    elif "letter" in prompt:
        text = "The answer is B."
    else:
        text = "I cannot tell from this image."
    output = ModelOutput.from_content(model="mockllm/model", content=text)
    # With usage set, mockllm does not count tokens with tiktoken, which would download its
    # encoding from OpenAI: this stays offline.
    output.usage = ModelUsage(input_tokens=len(prompt.split()), output_tokens=len(text.split()),
                              total_tokens=len(prompt.split()) + len(text.split()))
    return output


task_file, log_dir = sys.argv[1], sys.argv[2]
log = eval(task_file, model=get_model("mockllm/model", custom_outputs=respond), log_dir=log_dir,
           display="none")[0]
full = read_eval_log(log.location)
print(json.dumps({
    "status": log.status,
    "location": log.location,
    "metrics": {name: m.value for score in log.results.scores for name, m in score.metrics.items()},
    "samples": {str(s.id): {"value": s.scores["byo_scorer"].value, "answer": s.output.completion}
                for s in full.samples},
}))
