"""`byo human DATASET`: a web page that asks people a dataset's questions, one at a time, and
writes each annotator's answers as a run of provider `human` (model = the annotator) in the files
a model's run uses, so that `byo score` and `byo report` work on them unchanged.

One job per module: `selection` (which questions, in what order for whom, and what the page is
told of each: never the truth), `answers` (a submitted answer checked and written as text),
`store` (the annotators' runs on disk: one journal line per answer, fsynced, and the lock that
keeps one server per run), `app` (the ASGI application: routes, access token, host check, error
messages), `serve` (binding the socket, printing the address, running uvicorn), `borderline` (the
questions nearest each readability rule's threshold, `--borderline N`) and `agreement` (each rule's
decision against the annotators' answers, `--agreement`).
"""
