"""What a pane shows and what it costs: the pure floor under the tools (issue 30.1).

Text and cells (``scrollback``: views, frames, marks, cursors), what a result
costs inline (``inline``), bounded history windows (``windows``: the sizing and
the row bookkeeping; the tmux commands that read a window are in
``tools.observation``), pattern matching and its hits (``matching``,
``matches``), a pane's remembered geometry (``geometry``) and the text form of
records (``render``).

Rule: pure. No module here imports the driver, the tools, the run engine, the
runtime or trio, nor does IO: every function is a computation on values, so
each can be read and tested alone (``tests/panetext/``). The import contracts
in ``pyproject.toml`` keep it so.
"""
