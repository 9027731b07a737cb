// Issue 12, item 7: a user's cycle hidden under a known library leak.
//
// swift-corelibs-xctest's root suite ⇄ suite run cycle (a known library leak, see RealCodeXCTestRun)
// holds every test case until exit, and so everything a test case stores. A cycle a test case stores is
// the test's own leak — it leaks the moment the test case is released — and must be reported as a root
// cycle of its own, marked as held by the known library leak, and fail the run.
//
// leak:   `XCTMain` with two tests (and an empty third, run last): `testParts` stores `container = makeContainer()` where
//         `Container.parts ⇄ Part.owner` (Container, 2 Part and the parts' array storage form one
//         cycle), `testNode` stores a `Node` whose `me` is itself (a self-loop). 3 root cycles: XCTest's
//         (known), the container's and the node's; `leakgraph run` exits 1.
// fixed:  the same with `weak var owner` and no self-reference: only XCTest's known leak, exit 0; the
//         container, parts and node are among the objects it holds.

import Glibc
import XCTest

// MARK: - Fixture plumbing: parseMode comes from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

final class Container {
    var parts: [Part] = []
}

final class Part {
    var owner: Container?
    weak var weakOwner: Container?
}

final class Node {
    var me: Node?
}

@inline(never)
func makeContainer() -> Container {
    let container = Container()
    for _ in 0 ..< 2 {
        let part = Part()
        if mode == .leak { part.owner = container } else { part.weakOwner = container }  // store: leak Part.owner
        container.parts.append(part)
    }
    return container
}

@inline(never)
func makeNode() -> Node {
    let node = Node()
    if mode == .leak { node.me = node }  // store: leak Node.me
    return node
}

final class ServiceTests: XCTestCase {
    var container: Container?
    var node: Node?

    func testParts() {
        container = makeContainer()
        XCTAssertEqual(container?.parts.count, 2)
    }

    func testNode() {
        node = makeNode()
        XCTAssertNotNil(node)
    }

    /// Runs last and stores nothing: the last test case can still be referenced from outside when
    /// `XCTMain` exits (seen in some runs), which would make what it stores look held.
    func testLast() {}

    static let allTests = [("testParts", testParts), ("testNode", testNode), ("testLast", testLast)]
}

// The fixture's own argument must not reach XCTest, which would read it as a test filter.
XCTMain([testCase(ServiceTests.allTests)], arguments: [CommandLine.arguments[0]])
