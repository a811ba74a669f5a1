"""Property-based fuzzing of every caller-controlled parameter against real tmux (README.md)."""
