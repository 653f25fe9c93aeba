"""Rendering one image: `job.render_task` (bpy) turns a RenderTask into a RenderResult;
`writer.write_result` (no bpy) puts a result on disk; `loop.RenderLoop` renders a dataset's images
through an executor, writing and logging each (byo render, byo adapt and byo explain use it)."""
