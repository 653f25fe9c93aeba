"""Rendering one image: `job.render_task` (bpy) turns a RenderTask into a RenderResult;
`writer.write_result` (no bpy) puts a result on disk."""
