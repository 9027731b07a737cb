/// A request as the site reads it: the path's segments and the query's parameters, percent-decoded.
struct WebRequest: Sendable {
    /// `/object/12` → `["object", "12"]`; `/` → `[]`.
    var segments: [String]
    /// `?q=Blob&leaks=1` → `["q": "Blob", "leaks": "1"]` (the last of a repeated name wins).
    var query: [String: String]

    /// Parses a request target (`/types?q=Blob`).
    init(target: String) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        segments = parts.first.map { $0.split(separator: "/").map { Self.decode($0) } } ?? []
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = Self.decode(keyValue[0])
                query[key] = keyValue.count == 2 ? Self.decode(keyValue[1]) : ""
            }
        }
        self.query = query
    }

    /// Whether the flag `name` is on (`1`, `on`, `true`).
    func flag(_ name: String) -> Bool {
        guard let value = query[name] else { return false }
        return ["1", "on", "true", "yes"].contains(value.lowercased())
    }

    /// The integer parameter `name`, or `fallback`.
    func integer(_ name: String, _ fallback: Int) -> Int {
        query[name].flatMap { Int($0) } ?? fallback
    }

    /// `%41` → `A`, `+` → space; malformed escapes are kept as they are.
    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` for a query value or a path segment: everything but unreserved characters escaped.
    static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if character.isASCII, character.isLetter || character.isNumber || "-._~".contains(character) {
                result.append(character)
            } else {
                result += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }
}

/// What the site answers.
struct WebResponse: Sendable {
    /// The HTTP status code.
    var status: Int
    /// The `Content-Type`.
    var contentType: String
    /// The body.
    var body: String
    /// A `Location` for redirects.
    var location: String?

    /// An HTML page.
    static func html(_ body: String, status: Int = 200) -> WebResponse {
        WebResponse(status: status, contentType: "text/html; charset=utf-8", body: body)
    }

    /// A redirect to `location`.
    static func redirect(_ location: String) -> WebResponse {
        WebResponse(
            status: 303, contentType: "text/plain; charset=utf-8", body: "See \(location)\n", location: location)
    }
}
