"""The tmux driver: argv-only tmux invocations on one pinned socket, under trio.

Layers, each depending only on the one below:

* ``_spawn``   the only module that starts processes (a lint rule enforces it);
* ``runner``   the interface the client runs argv through: ``spawn`` (real
  tmux, via ``_spawn``) or ``fake.FakeTmux`` (a script, for tests);
* ``argv``     renders commands to argv, applying tmux's argv-layer rules;
* ``socket``   the validated socket selection, fixed for the process lifetime;
* ``records``  nonce-framed ``-F`` templates and their parser;
* ``client``   runs commands against the bound server and maps tmux's errors;
* ``binding``  decides provenance once at startup and binds to one server.
"""
