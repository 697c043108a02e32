"""The course tooling around the engine: the exercise checker, the reader's own network, the grader and
the student edition. Notebooks reach it through ``rnn_core.practice``; instructors through
``python -m rnn_core grade`` and ``python -m rnn_core student-edition``. README.md in this folder
lists its rooms. Nothing here is imported by ``import rnn_core``.
"""
