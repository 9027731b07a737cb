#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import FoundationEssentials
#endif
import LeakGraphModel

extension LeakReport {
    /// The report as JSON (UTF-8), keys sorted, slashes unescaped.
    ///
    /// Optional schema fields (`cycle`, a frame's `file` and `line`) are written as `null` when absent,
    /// as the schema says, rather than left out.
    ///
    /// The document is the one `JSONEncoder` makes of the `Codable` conformance with `.sortedKeys` and
    /// `.withoutEscapingSlashes` (and `.prettyPrinted` when asked), written directly by a dedicated
    /// writer (LeakReport+JSONWriter.swift), 12–19 times faster (docs/performance.md). The conformance
    /// stays for reports encoded inside other `Codable` values.
    ///
    /// - Parameter prettyPrinted: Indent the output for people (the default) or write it on one line.
    /// - Throws: Nothing today; kept throwing so callers need not change if a future field can fail.
    /// - Complexity: O(size of the report).
    public func jsonData(prettyPrinted: Bool = true) throws -> Data {
        Data(jsonBytes(prettyPrinted: prettyPrinted))
    }

    /// Reads a JSON report written by ``jsonData(prettyPrinted:)``.
    ///
    /// Each failure gets its own ``ReportDecodingError/Code``: invalid JSON is
    /// ``ReportDecodingError/Code/damagedJSON``; JSON without an integer `schemaVersion` is
    /// ``ReportDecodingError/Code/notALeakReport``; a version other than 1 through
    /// ``currentSchemaVersion`` is ``ReportDecodingError/Code/unsupportedSchemaVersion``; a supported
    /// version with missing or mistyped fields is ``ReportDecodingError/Code/invalidReport``.
    ///
    /// A readable report is parsed once: the whole report is decoded and then its version checked. Only
    /// when that fails is the top-level `schemaVersion` read on its own, through a header type that knows
    /// nothing else, to tell the failures apart — the same codes and messages as reading the header
    /// first, without parsing every good report twice (`JSONDecoder` parses the whole document even for
    /// a one-field type: about an eighth of the time of a large report).
    ///
    /// - Complexity: O(size of the data).
    public static func decode(from data: Data) throws(ReportDecodingError) -> LeakReport {
        let decoder = JSONDecoder()
        let failure: any Error
        do {
            var report = try decoder.decode(LeakReport.self, from: data)
            try checkSupported(schemaVersion: report.schemaVersion)
            report.resolveSuspectReferences()
            return report
        } catch let error as ReportDecodingError {
            throw error
        } catch {
            failure = error
        }
        let header: ReportHeader
        do {
            header = try decoder.decode(ReportHeader.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw ReportDecodingError(
                code: .damagedJSON,
                message: "The file is not valid JSON (damaged or truncated): \(context.debugDescription)"
            )
        } catch {
            throw ReportDecodingError(
                code: .notALeakReport,
                message: "The file is JSON but not a LeakGraph report: "
                    + "it has no integer \"schemaVersion\" at its top level."
            )
        }
        try checkSupported(schemaVersion: header.schemaVersion)
        if let failure = failure as? DecodingError {
            throw ReportDecodingError(
                code: .invalidReport,
                message: "The report says schema version \(header.schemaVersion) but does not match it: "
                    + Self.describe(failure)
            )
        }
        throw ReportDecodingError(code: .invalidReport, message: "The report could not be read: \(failure)")
    }

    /// Refuses a schema version this build does not read.
    /// - Throws: ``ReportDecodingError/Code/unsupportedSchemaVersion`` for a version other than 1 through
    ///   ``currentSchemaVersion``.
    private static func checkSupported(schemaVersion: Int) throws(ReportDecodingError) {
        guard schemaVersion <= currentSchemaVersion else {
            throw ReportDecodingError(
                code: .unsupportedSchemaVersion,
                message: "The report has schema version \(schemaVersion), written by a newer LeakGraph; "
                    + "this build reads schema versions 1 through \(currentSchemaVersion). Update LeakGraph to read it."
            )
        }
        guard schemaVersion >= 1 else {
            throw ReportDecodingError(
                code: .unsupportedSchemaVersion,
                message: "The report has schema version \(schemaVersion), which no LeakGraph writes; "
                    + "versions start at 1."
            )
        }
    }

    /// A one-line description of a decoding error, naming the JSON path.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in
                key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
            }.joined()
            return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
        }
        switch error {
        case let .keyNotFound(key, context):
            let parent = path(context.codingPath)
            return "missing field \"\(key.stringValue)\" in \(parent)."
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            return "\(path(context.codingPath)) has the wrong type: \(context.debugDescription)"
        case let .dataCorrupted(context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

extension LeakReport {
    /// Gives every suspect without a reference index (read from a report written before suspects carried
    /// one, or built by hand) the index of the first reference with the same endpoints and label.
    /// ``decode(from:)`` calls it; the builder always sets the index.
    public mutating func resolveSuspectReferences() {
        for position in cycles.indices {
            guard let suspect = cycles[position].suspect, suspect.reference == nil else { continue }
            cycles[position].suspect?.reference = references.firstIndex {
                $0.from == suspect.from && $0.to == suspect.to && $0.label == suspect.label
            }
        }
    }
}

extension LeakReport.LeakReference {
    /// Reads a reference; one written before paths existed gets a path of one
    /// ``LeakGraphModel/PathStep/label(_:)`` step holding its label.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let from = try container.decode(Int.self, forKey: .from)
        let to = try container.decode(Int.self, forKey: .to)
        let ownership = try container.decode(Ownership.self, forKey: .ownership)
        let path: ReferencePath
        if let written = try container.decodeIfPresent(ReferencePath.self, forKey: .path) {
            path = written
        } else {
            path = [.label(try container.decode(String.self, forKey: .label))]
        }
        self.init(from: from, to: to, path: path, ownership: ownership)
        storeSite = try container.decodeIfPresent(LeakReport.StoreSite.self, forKey: .storeSite)
    }

    /// Writes the reference with both its `label` (for readers of the text) and its `path` (the steps).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(label, forKey: .label)
        try container.encode(path, forKey: .path)
        try container.encode(ownership, forKey: .ownership)
        try container.encodeIfPresent(storeSite, forKey: .storeSite)
    }
}

/// The part of every LeakGraph file that is read first: its schema version.
struct ReportHeader: Decodable {
    /// The version of the schema the file was written with.
    var schemaVersion: Int
}

extension LeakReport.Leak {
    /// Reads a leak as version 1 writes it, with its `backtrace`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(fieldsOf: container, backtrace: container.decode([LeakReport.Frame].self, forKey: .backtrace))
    }

    /// Encodes the leak as version 1 writes it, with its `backtrace`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try encodeFields(into: &container)
        try container.encode(backtrace, forKey: .backtrace)
    }

    /// Reads the fields both schema versions share, with `backtrace` given.
    init(fieldsOf container: KeyedDecodingContainer<CodingKeys>, backtrace: [LeakReport.Frame]) throws {
        self.init(
            id: try container.decode(Int.self, forKey: .id),
            address: try container.decode(String.self, forKey: .address),
            type: try container.decode(String.self, forKey: .type),
            kind: try container.decode(String.self, forKey: .kind),
            size: try container.decode(Int.self, forKey: .size),
            retainCount: try container.decode(Int.self, forKey: .retainCount),
            cycle: try container.decodeIfPresent(Int.self, forKey: .cycle), backtrace: backtrace,
            proof: try container.decodeIfPresent(LeakReport.Proof.self, forKey: .proof))
    }

    /// Writes the fields both schema versions share, `cycle` as `null` when absent (the schema's
    /// "Int or null").
    func encodeFields(into container: inout KeyedEncodingContainer<CodingKeys>) throws {
        try container.encode(id, forKey: .id)
        try container.encode(address, forKey: .address)
        try container.encode(type, forKey: .type)
        try container.encode(kind, forKey: .kind)
        try container.encode(size, forKey: .size)
        try container.encode(retainCount, forKey: .retainCount)
        try container.encode(cycle, forKey: .cycle)
        try container.encodeIfPresent(proof, forKey: .proof)
    }
}

extension LeakReport.Frame {
    /// Encodes the frame, writing `file` and `line` as `null` when unknown (the schema's "or null").
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(function, forKey: .function)
        try container.encode(file, forKey: .file)
        try container.encode(line, forKey: .line)
    }
}
