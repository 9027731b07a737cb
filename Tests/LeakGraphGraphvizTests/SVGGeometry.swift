import Foundation

/// Positions read back from Graphviz's SVG, in the SVG's user units (every shape of one graph shares the
/// graph group's transform, so they compare directly).
enum SVGGeometry {
    struct Point {
        var x: Double
        var y: Double
    }

    /// An axis-aligned rectangle.
    struct Box {
        var minX: Double, minY: Double, maxX: Double, maxY: Double

        init(_ points: [Point]) {
            minX = points.map(\.x).min() ?? 0
            maxX = points.map(\.x).max() ?? 0
            minY = points.map(\.y).min() ?? 0
            maxY = points.map(\.y).max() ?? 0
        }

        /// The union of two boxes.
        func union(_ other: Box) -> Box {
            Box([Point(x: min(minX, other.minX), y: min(minY, other.minY)),
                 Point(x: max(maxX, other.maxX), y: max(maxY, other.maxY))])
        }

        /// The box grown by `margin` on every side (shrunk for a negative margin).
        func inset(by margin: Double) -> Box {
            Box([Point(x: minX - margin, y: minY - margin), Point(x: maxX + margin, y: maxY + margin)])
        }

        func contains(_ point: Point) -> Bool {
            point.x >= minX && point.x <= maxX && point.y >= minY && point.y <= maxY
        }

        /// How far `point` is from the box (0 inside it).
        func distance(to point: Point) -> Double {
            let dx = max(minX - point.x, 0, point.x - maxX)
            let dy = max(minY - point.y, 0, point.y - maxY)
            return (dx * dx + dy * dy).squareRoot()
        }
    }

    /// The numbers of an SVG `d` or `points` attribute, paired as points.
    static func points(_ text: String) -> [Point] {
        var numbers: [Double] = []
        var current = ""
        for character in text {
            if character.isNumber || character == "." || (character == "-" && current.isEmpty) {
                current.append(character)
            } else {
                if let number = Double(current) { numbers.append(number) }
                current = character == "-" ? "-" : ""
            }
        }
        if let number = Double(current) { numbers.append(number) }
        return stride(from: 0, to: numbers.count - 1, by: 2).map { Point(x: numbers[$0], y: numbers[$0 + 1]) }
    }

    /// The box of a node group's shape (its `<path>` or `<polygon>`).
    static func box(ofNode node: Element) -> Box? {
        guard let shape = node.subtree.first(where: { $0.name == "path" || $0.name == "polygon" }) else { return nil }
        return Box(points(shape.attributes["d"] ?? shape.attributes["points"] ?? ""))
    }

    /// Points along an edge's spline (Graphviz writes `M p0 C p1 p2 p3 p4 p5 p6 …`), sampled on each cubic
    /// Bézier segment, so a route's bulge counts and its control points do not.
    static func curve(ofEdge edge: Element, samplesPerSegment: Int = 16) -> [Point] {
        guard let path = edge.subtree.first(where: { $0.name == "path" }) else { return [] }
        let controls = points(path.attributes["d"] ?? "")
        guard controls.count >= 4 else { return controls }
        var result: [Point] = [controls[0]]
        var index = 0
        while index + 3 < controls.count {
            let (p0, p1, p2, p3) = (controls[index], controls[index + 1], controls[index + 2], controls[index + 3])
            for step in 1 ... samplesPerSegment {
                let t = Double(step) / Double(samplesPerSegment)
                let u = 1 - t
                let a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t
                result.append(Point(x: a * p0.x + b * p1.x + c * p2.x + d * p3.x,
                                    y: a * p0.y + b * p1.y + c * p2.y + d * p3.y))
            }
            index += 3
        }
        return result
    }

    /// The centre of an edge's arrowhead (its `<polygon>`).
    static func arrowhead(ofEdge edge: Element) -> Point? {
        guard let polygon = edge.subtree.first(where: { $0.name == "polygon" }) else { return nil }
        let corners = points(polygon.attributes["points"] ?? "")
        guard !corners.isEmpty else { return nil }
        return Point(x: corners.map(\.x).reduce(0, +) / Double(corners.count),
                     y: corners.map(\.y).reduce(0, +) / Double(corners.count))
    }

    /// The anchor of each of an edge's labels.
    static func labelAnchors(ofEdge edge: Element) -> [Point] {
        edge.subtree.filter { $0.name == "text" }.compactMap { text in
            guard let x = text.attributes["x"].flatMap(Double.init), let y = text.attributes["y"].flatMap(Double.init)
            else { return nil }
            return Point(x: x, y: y)
        }
    }
}
