"""One property per (sink, encoding) pair in the capability definition.

``PROPERTIES`` maps every pair a parameter can declare to the property that
fuzzes it; ``fuzz.cases.cases()`` lists every (tool, parameter) of
``DEFINITION``. The coverage test checks both directions, so a parameter with
a new pair fails CI until a property exists, and a property no parameter uses
is removed. The properties live in one module per sink.
"""

from __future__ import annotations

from fuzz.properties.base import Property
from fuzz.properties.buffers import BufferName
from fuzz.properties.keys import KeysOrText
from fuzz.properties.names import DirectoryRoundTrip, NameRoundTrip
from fuzz.properties.shell import PaneShellText
from fuzz.properties.target import TargetIdOnly
from fuzz.properties.vocabulary import ClosedVocabulary, Local, Numeric
from tmuxmcp.sinks import Encoding, Sink

PROPERTIES: dict[tuple[Sink, Encoding], Property] = {
    (Sink.TARGET, Encoding.ID_ONLY): TargetIdOnly(),
    (Sink.TMUX_FORMAT, Encoding.NAME_RULE): NameRoundTrip(),
    (Sink.TMUX_FORMAT, Encoding.DIRECTORY): DirectoryRoundTrip(),
    (Sink.TMUX_FORMAT, Encoding.CLOSED_VOCABULARY): ClosedVocabulary(),
    (Sink.LITERAL, Encoding.CLOSED_VOCABULARY): ClosedVocabulary(),
    (Sink.FLAG, Encoding.CLOSED_VOCABULARY): ClosedVocabulary(),
    (Sink.LOCAL, Encoding.CLOSED_VOCABULARY): ClosedVocabulary(),
    (Sink.FLAG, Encoding.FIXED_FLAG): ClosedVocabulary(),
    (Sink.NUMERIC, Encoding.VALIDATED_INTEGER): Numeric(),
    (Sink.LOCAL, Encoding.NONE): Local(),
    (Sink.KEYS, Encoding.KEYS_OR_TEXT): KeysOrText(),
    (Sink.SHELL, Encoding.PANE_SHELL_TEXT): PaneShellText(),
    (Sink.LITERAL, Encoding.ARGV_ONLY): BufferName(),
}
"""The property for every (sink, encoding) pair the definition uses."""
