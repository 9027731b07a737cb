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
    private enum Keys: String, CodingKey {
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
        let container = try decoder.container(keyedBy: Keys.self)
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
                field: try container.decodeIfPresent(String.self, forKey: .name), offset: try container.decode(Int.self, forKey: .offset))
        case .asyncFrames: self = .asyncFrames
        case .childTask: self = .childTask
        case .ownedMemoryPointer:
            self = .ownedMemoryPointer(
                field: try container.decodeIfPresent(String.self, forKey: .name), offset: try container.decode(Int.self, forKey: .offset))
        }
    }

    /// Encodes one step as `{"kind": …}` plus its fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case .property(let name):
            try container.encode(Kind.property, forKey: .kind)
            try container.encode(name, forKey: .name)
        case .tupleElement(let name):
            try container.encode(Kind.tupleElement, forKey: .kind)
            try container.encode(name, forKey: .name)
        case .enumCase(let name):
            try container.encode(Kind.enumCase, forKey: .kind)
            try container.encode(name, forKey: .name)
        case .optionalPayload:
            try container.encode(Kind.optionalPayload, forKey: .kind)
        case .indirectPayload:
            try container.encode(Kind.indirectPayload, forKey: .kind)
        case .existentialValue(let type):
            try container.encode(Kind.existentialValue, forKey: .kind)
            try container.encode(type, forKey: .type)
        case .existentialBox(let existential, let type):
            try container.encode(Kind.existentialBox, forKey: .kind)
            try container.encode(existential, forKey: .existential)
            try container.encode(type, forKey: .type)
        case .element(let index):
            try container.encode(Kind.element, forKey: .kind)
            try container.encode(index, forKey: .index)
        case .dictionaryKey(let key):
            try container.encode(Kind.dictionaryKey, forKey: .kind)
            try container.encodeIfPresent(key, forKey: .key)
        case .dictionaryValue(let key):
            try container.encode(Kind.dictionaryValue, forKey: .kind)
            try container.encodeIfPresent(key, forKey: .key)
        case .setMember:
            try container.encode(Kind.setMember, forKey: .kind)
        case .closureContext:
            try container.encode(Kind.closureContext, forKey: .kind)
        case .capture(let index):
            try container.encode(Kind.capture, forKey: .kind)
            try container.encode(index, forKey: .index)
        case .captureBox:
            try container.encode(Kind.captureBox, forKey: .kind)
        case .boxValue:
            try container.encode(Kind.boxValue, forKey: .kind)
        case .errorValue:
            try container.encode(Kind.errorValue, forKey: .kind)
        case .storage:
            try container.encode(Kind.storage, forKey: .kind)
        case .label(let text):
            try container.encode(Kind.label, forKey: .kind)
            try container.encode(text, forKey: .text)
        case .taskHandle:
            try container.encode(Kind.taskHandle, forKey: .kind)
        case .taskClosure:
            try container.encode(Kind.taskClosure, forKey: .kind)
        case .resumesTask:
            try container.encode(Kind.resumesTask, forKey: .kind)
        case .suspendedForever:
            try container.encode(Kind.suspendedForever, forKey: .kind)
        case .rawPointer(let field, let offset):
            try container.encode(Kind.rawPointer, forKey: .kind)
            try container.encodeIfPresent(field, forKey: .name)
            try container.encode(offset, forKey: .offset)
        case .asyncFrames:
            try container.encode(Kind.asyncFrames, forKey: .kind)
        case .childTask:
            try container.encode(Kind.childTask, forKey: .kind)
        case .ownedMemoryPointer(let field, let offset):
            try container.encode(Kind.ownedMemoryPointer, forKey: .kind)
            try container.encodeIfPresent(field, forKey: .name)
            try container.encode(offset, forKey: .offset)
        }
    }
}
