/// JSON form of a path: an array of step objects, each with a `kind` and that kind's fields
/// (docs/report-format.md): `{"kind": "property", "name": "delegate"}`, `{"kind": "element", "index": 2}`.
extension ReferencePath: Codable {
    /// Decodes the array of steps.
    public init(from decoder: any Decoder) throws {
        self.init(try [PathStep](from: decoder))
    }

    /// Encodes the array of steps.
    public func encode(to encoder: any Encoder) throws {
        try steps.encode(to: encoder)
    }
}

extension PathStep: Codable {
    /// The JSON keys of every kind's fields, for this conformance and the report's writer.
    package enum CodingKeys: String, CodingKey {
        case kind, name, type, existential, index, key, text, offset
    }

    /// The `kind` values of the JSON form.
    private enum Kind: String, Codable {
        case property, tupleElement, enumCase, optionalPayload, indirectPayload, existentialValue, existentialBox
        case element, dictionaryKey, dictionaryValue, setMember, closureContext, capture, captureBox, boxValue
        case errorValue, storage, label, taskHandle, taskClosure, resumesTask, suspendedForever
        case rawPointer, ownedMemoryPointer, asyncFrames, childTask
    }

    /// Decodes one step; an unknown `kind` is an error (a newer writer's step this reader cannot show).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .kind) {
        case .property: self = .property(try container.decode(String.self, forKey: .name))
        case .tupleElement: self = .tupleElement(try container.decode(String.self, forKey: .name))
        case .enumCase: self = .enumCase(try container.decode(String.self, forKey: .name))
        case .optionalPayload: self = .optionalPayload
        case .indirectPayload: self = .indirectPayload
        case .existentialValue: self = .existentialValue(type: try container.decode(String.self, forKey: .type))
        case .existentialBox:
            self = .existentialBox(
                existential: try container.decode(String.self, forKey: .existential),
                type: try container.decode(String.self, forKey: .type))
        case .element: self = .element(try container.decode(Int.self, forKey: .index))
        case .dictionaryKey: self = .dictionaryKey(try container.decodeIfPresent(DictionaryKey.self, forKey: .key))
        case .dictionaryValue: self = .dictionaryValue(try container.decodeIfPresent(DictionaryKey.self, forKey: .key))
        case .setMember: self = .setMember
        case .closureContext: self = .closureContext
        case .capture: self = .capture(try container.decode(Int.self, forKey: .index))
        case .captureBox: self = .captureBox
        case .boxValue: self = .boxValue
        case .errorValue: self = .errorValue
        case .storage: self = .storage
        case .label: self = .label(try container.decode(String.self, forKey: .text))
        case .taskHandle: self = .taskHandle
        case .taskClosure: self = .taskClosure
        case .resumesTask: self = .resumesTask
        case .suspendedForever: self = .suspendedForever
        case .rawPointer:
            self = .rawPointer(
                field: try container.decodeIfPresent(String.self, forKey: .name),
                offset: try container.decode(Int.self, forKey: .offset))
        case .asyncFrames: self = .asyncFrames
        case .childTask: self = .childTask
        case .ownedMemoryPointer:
            self = .ownedMemoryPointer(
                field: try container.decodeIfPresent(String.self, forKey: .name),
                offset: try container.decode(Int.self, forKey: .offset))
        }
    }

    /// Encodes one step as `{"kind": …}` plus its fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(codingKind, forKey: .kind)
        switch self {
        case .property(let name):
            try container.encode(name, forKey: .name)
        case .tupleElement(let name):
            try container.encode(name, forKey: .name)
        case .enumCase(let name):
            try container.encode(name, forKey: .name)
        case .existentialValue(let type):
            try container.encode(type, forKey: .type)
        case .existentialBox(let existential, let type):
            try container.encode(existential, forKey: .existential)
            try container.encode(type, forKey: .type)
        case .element(let index):
            try container.encode(index, forKey: .index)
        case .dictionaryKey(let key):
            try container.encodeIfPresent(key, forKey: .key)
        case .dictionaryValue(let key):
            try container.encodeIfPresent(key, forKey: .key)
        case .capture(let index):
            try container.encode(index, forKey: .index)
        case .label(let text):
            try container.encode(text, forKey: .text)
        case .rawPointer(let field, let offset):
            try container.encodeIfPresent(field, forKey: .name)
            try container.encode(offset, forKey: .offset)
        case .ownedMemoryPointer(let field, let offset):
            try container.encodeIfPresent(field, forKey: .name)
            try container.encode(offset, forKey: .offset)
        case .optionalPayload, .indirectPayload, .setMember, .closureContext, .captureBox, .boxValue, .errorValue,
            .storage, .taskHandle, .taskClosure, .resumesTask, .suspendedForever, .asyncFrames, .childTask:
            break  // the kind alone
        }
    }
}

extension PathStep {
    /// The step's `kind` in the JSON form (`property`, `element`, `closureContext`, …): spelled once, in
    /// this file's `Kind` enum, for the `Codable` conformance and the report's JSON writer alike.
    public var jsonKind: String { codingKind.rawValue }

    /// The step's `kind` value.
    private var codingKind: Kind {
        switch self {
        case .property: .property
        case .tupleElement: .tupleElement
        case .enumCase: .enumCase
        case .optionalPayload: .optionalPayload
        case .indirectPayload: .indirectPayload
        case .existentialValue: .existentialValue
        case .existentialBox: .existentialBox
        case .element: .element
        case .dictionaryKey: .dictionaryKey
        case .dictionaryValue: .dictionaryValue
        case .setMember: .setMember
        case .closureContext: .closureContext
        case .capture: .capture
        case .captureBox: .captureBox
        case .boxValue: .boxValue
        case .errorValue: .errorValue
        case .storage: .storage
        case .label: .label
        case .taskHandle: .taskHandle
        case .taskClosure: .taskClosure
        case .resumesTask: .resumesTask
        case .suspendedForever: .suspendedForever
        case .rawPointer: .rawPointer
        case .asyncFrames: .asyncFrames
        case .childTask: .childTask
        case .ownedMemoryPointer: .ownedMemoryPointer
        }
    }
}
