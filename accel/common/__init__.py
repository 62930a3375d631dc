"""What every feature package shares, and nothing feature-specific: errors (`AccelError`), the log, the keys the
pack registers on a MODEL, model families, the hardware profile, the defaults table, the figures table, the report
after the run (`live_report`), the failure vocabulary and tensor comparison."""
