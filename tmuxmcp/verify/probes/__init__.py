"""The probes behind the claims, one module per family of claims.

Each probe is ``async def probe_<claim>(lab) -> None``: it returns when tmux
behaves as its claim says, and raises ``ClaimFailed`` with what it saw when
not. Probes keep the rules of ``tmuxmcp.verify.lab``: private sockets only,
fixed inputs, every wait bounded, sentinels for anything that must not run.
Which probe proves which claim is declared once, in ``tmuxmcp.verify.claims``.
"""
