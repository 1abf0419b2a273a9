"""Report renderers: the versioned result JSON, Markdown (and later HTML, JUnit).

Renderers take an `AuditResult` (parsed from JSON) and never recompute statistics."""
