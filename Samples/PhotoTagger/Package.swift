// swift-tools-version: 6.1
import PackageDescription

// PhotoTagger, modelled in plain Swift: an image-analysis pipeline whose stages report through completion
// handlers, a tag index, an image cache and a task per image. `PhotoTagger leak` keeps the leak such
// pipelines have (a stage storing a completion closure that captures the stage's owner);
// `PhotoTagger fixed` has its one-line fix.
let package = Package(
    name: "PhotoTagger",
    products: [
        .executable(name: "PhotoTagger", targets: ["PhotoTagger"]),
    ],
    targets: [
        .executableTarget(name: "PhotoTagger"),
    ]
)
