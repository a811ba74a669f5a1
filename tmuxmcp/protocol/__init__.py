"""MCP over JSON-RPC 2.0, as tmuxmcp serves it: messages, versions, the session's era, dispatch.

This package knows nothing of tmux, tools or the capability definition: it
imports only the standard library, trio and msgspec (an import-linter
contract keeps it so). ``tmuxmcp.server`` fills its method table with the
definition's tools and resources; ``wire`` (the framing) turns lines into its
messages; ``tmuxmcp.transport`` moves the bytes.

    codes      the JSON-RPC error codes and ``RpcError``
    messages   inbound envelopes and outgoing responses, encoded once
    results    the MCP result Structs
    params     each method's params Struct
    versions   the versions served, negotiation, the 2026-07-28 envelope
    session    the connection's era, as a transitions table
    dispatch   the method table, one task per request, cancellation
    tasks      the Tasks extension: the task store and the tasks/* methods
    wire       the framing: an inbound line to a message, or the error that answers it
"""
