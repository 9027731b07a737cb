// swift-tools-version: 6.1
import PackageDescription

// NeighBird, modelled in plain Swift: users, groups and messages, a chat screen with message handlers,
// a slide control and an async refresh. `NeighBird leak` keeps the two leaks such apps have (a message
// observer closure capturing the chat screen, a strong `SlideControlDelegate`); `NeighBird fixed` has
// the one-line fix of each; `NeighBird task` keeps the screen alive from a never-ending refresh task.
let package = Package(
    name: "NeighBird",
    products: [
        .executable(name: "NeighBird", targets: ["NeighBird"]),
    ],
    targets: [
        .executableTarget(name: "NeighBird"),
    ]
)
