"""The live-path benchmark: `make bench`. See docs/performance.md."""
