// `import LeakGraph` alone names everything a user of the façade handles: the object graph and its
// references (LeakGraphModel), the analysis, suspects and fingerprints (LeakGraphAnalysis), and the
// report value with its JSON and text renderers (LeakGraphReport), and heap snapshot files
// (LeakGraphSnapshotFile).
@_exported import LeakGraphAnalysis
@_exported import LeakGraphModel
@_exported import LeakGraphRender
@_exported import LeakGraphReport
@_exported import LeakGraphSnapshotFile
