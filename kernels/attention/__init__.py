"""Attention backends: one registry (`registry.BACKENDS`), one adapter per library."""
