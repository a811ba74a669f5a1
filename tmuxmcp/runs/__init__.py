"""The run engine: a run's state, files and bookkeeping, below the tools (issue 30.1).

The phases that talk to tmux (``settle``, ``type_line``, ``watch``,
``collect``, ``continuation``, the handlers) stay in ``tmuxmcp.tools.run``,
the run wing; what they share lives here and knows no ``ToolContext`` and no
tmux client: ``state`` (a run's life: its phases, the typed events that move
it and the one transitions table), ``files`` (its files and FIFOs),
``directory`` (the private directory and its records), ``sweep`` (removing
the directories dead processes left), ``turns`` and ``panelock`` (one run per
pane, in this process and across processes), ``registry`` (the runs of this
process), ``runscript`` (the script the shell runs and the line typed, pure
text), ``output`` (where the output starts and what is kept, pure), ``screen``
(what one tmux invocation printed, parsed) and ``pending`` (input already
waiting in a pane).

Rule: no module here imports the tools (``ToolContext`` included), the
driver's tmux client (``client``, ``runner``, ``binding``, ``fake``,
``_spawn``), the runtime or the server, directly or not; the import
contracts in ``pyproject.toml`` keep it so. It reads ``/proc`` and the
terminal only through ``driver.proc`` and ``driver.tty``.
"""
