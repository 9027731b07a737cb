// `import LeakGraph` alone names everything a user of the façade handles: the object graph and its
// references (LeakGraphModel), the analysis, suspects and fingerprints (LeakGraphAnalysis), the report
// value with its JSON and baselines (LeakGraphReport), its renderers that need no system library — text,
// JUnit, SARIF, DOT, HTML (LeakGraphRender) — and heap snapshot files (LeakGraphSnapshotFile).
@_exported import LeakGraphAnalysis
@_exported import LeakGraphModel
@_exported import LeakGraphRender
@_exported import LeakGraphReport
@_exported import LeakGraphSnapshotFile
