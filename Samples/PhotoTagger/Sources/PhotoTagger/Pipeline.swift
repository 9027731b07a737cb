/// Labels what a picture shows; reports through a stored completion handler, as callback-style vision
/// APIs do.
final class ClassificationStage {
    /// Called with the labels when an analysis finishes. The stage keeps it for every later analysis.
    var completion: (([String]) -> Void)?

    func analyze(_ image: DecodedImage) {
        completion?(image.brightness > 0.5 ? ["sky", "beach"] : ["forest", "bird"])
    }
}

/// Finds faces; reports through a stored completion handler too.
final class FaceDetectionStage {
    var completion: ((Int) -> Void)?

    func analyze(_ image: DecodedImage) {
        completion?(Int(image.pixels[0]) % 3)
    }
}

/// The analysis of one photo: owns the pipeline's stages and collects what they report.
@MainActor
final class TaggingJob {
    let photo: Photo
    let image: DecodedImage
    let classifier = ClassificationStage()
    let faceDetector = FaceDetectionStage()
    private(set) var tags: [String] = []

    init(photo: Photo, image: DecodedImage) {
        self.photo = photo
        self.image = image
        if mode == .leak {
            // THE LEAK: the stage keeps this closure, and the closure keeps the job that owns the stage.
            classifier.completion = { labels in self.tags += labels }
        } else {
            // THE FIX: capture the job weakly.
            classifier.completion = { [weak self] labels in self?.tags += labels }
        }
        // Done right in both modes.
        faceDetector.completion = { [weak self] faces in
            if faces > 0 {
                self?.tags.append("people")
            }
        }
    }

    deinit {
        freedJobs += 1
    }

    /// Runs the stages one after the other, letting other photos' tasks run in between.
    func run() async -> [String] {
        classifier.analyze(image)
        await Task.yield()
        faceDetector.analyze(image)
        return tags
    }
}
