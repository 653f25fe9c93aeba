"""Run inside the lmms-eval virtualenv: build an exported task with lmms-eval's own task loader
and score given answers with its `process_results`. argv: TASK_DIR TASK_NAME ANSWERS_JSON,
ANSWERS_JSON a list of [doc index, response]. Prints one JSON object."""

import json
import sys

from lmms_eval.tasks import TaskManager, get_task_dict

folder, name, answers = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
manager = TaskManager(include_path=folder, include_defaults=False)
tasks = get_task_dict([name], manager)
task = tasks[name]
docs = list(task.test_docs())
records = [task.process_results(docs[i], [response]) for i, response in answers]
print(json.dumps({
    "all_tasks": manager.all_tasks,
    "ids": [d["id"] for d in docs],
    "text": task.doc_to_text(docs[0]),
    "visual": [list(image.size) for image in task.doc_to_visual(docs[0])],
    "target": task.doc_to_target(docs[0]),
    "records": [r["byo_accuracy"] for r in records],
    "metrics": sorted(records[0]),
}))
