"""nbgrader configuration for a course graded with the analysis kernel.

Put this file at the root of the nbgrader course directory (next to source/, submitted/ and
gradebook.db). `nbgrader generate_assignment` and `nbgrader autograde` then run the notebooks
with the "analysis" kernel (installed by `analysis-kernel install`); a test cell (nbgrader
"grade": true) scores its points when it runs without an error output, and 0 when it raises,
which is how nbgrader reads failures: the kernel reports every failed assert, NameError,
refused import or exhausted budget as an `error` output.
"""

c = get_config()  # noqa: F821 (defined by nbgrader when it loads this file)

c.CourseDirectory.course_id = "program-analysis"

# Run every notebook with this kernel, whatever kernel a student's copy names. The kernel
# sandboxes the cells itself (no file, process or network access; step, memory and time
# budgets), so a hostile submission fails its tests instead of harming the grader.
c.Execute.kernel_name = "analysis"
# Seconds per cell; the kernel's own time limit (%config time_limit_s) stops cells sooner.
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True

# The stub that replaces ### BEGIN/END SOLUTION in the released notebook.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
