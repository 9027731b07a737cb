/// A photo in the user's library.
final class Photo {
    let name: String
    let width: Int
    let height: Int

    init(name: String, width: Int, height: Int) {
        self.name = name
        self.width = width
        self.height = height
    }
}

/// A photo decoded for analysis: a small greyscale thumbnail.
final class DecodedImage {
    let pixels: [UInt8]

    init(_ photo: Photo) {
        let seed = photo.name.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFF }
        pixels = (0..<64).map { UInt8(truncatingIfNeeded: seed &+ $0 &* (photo.width % 7 + 1)) }
    }

    var brightness: Double {
        Double(pixels.reduce(0) { $0 + Int($1) }) / Double(pixels.count * 255)
    }
}

/// An NSCache-like cache of decoded images: keeps at most `countLimit`, evicting the least recently used.
final class ImageCache {
    let countLimit: Int
    private var images: [String: DecodedImage] = [:]
    private var recentlyUsed: [String] = []

    init(countLimit: Int) {
        self.countLimit = countLimit
    }

    /// The decoded image of `photo`, decoding it on a miss.
    func image(for photo: Photo) -> DecodedImage {
        recentlyUsed.removeAll { $0 == photo.name }
        recentlyUsed.append(photo.name)
        if let image = images[photo.name] {
            return image
        }
        let image = DecodedImage(photo)
        images[photo.name] = image
        if images.count > countLimit {
            images[recentlyUsed.removeFirst()] = nil
        }
        return image
    }
}

/// Which photos carry which tag.
final class TagIndex {
    private(set) var photosByTag: [String: Set<String>] = [:]

    func add(_ tags: [String], to photo: Photo) {
        for tag in tags {
            photosByTag[tag, default: []].insert(photo.name)
        }
    }
}
