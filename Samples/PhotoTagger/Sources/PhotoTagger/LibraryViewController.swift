/// The photo library screen: tags every photo, one task per photo, and indexes the tags.
@MainActor
final class LibraryViewController {
    let photos: [Photo]
    let cache = ImageCache(countLimit: 2)
    let index = TagIndex()

    init(photos: [Photo]) {
        self.photos = photos
    }

    /// Starts one task per photo and waits for all of them. Each task finishes: none of them keeps anything.
    func tagAll() async {
        let tasks = photos.map { photo in
            Task { await self.tag(photo) }
        }
        for task in tasks {
            await task.value
        }
    }

    private func tag(_ photo: Photo) async {
        let job = makeJob(for: photo)
        index.add(await job.run(), to: photo)
    }

    @inline(never)
    private func makeJob(for photo: Photo) -> TaggingJob {
        TaggingJob(photo: photo, image: cache.image(for: photo))
    }
}
