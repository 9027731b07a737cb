// PhotoTagger: the object graph of a photo-tagging iOS app, in plain Swift.
//
//     PhotoTagger [leak]   each photo's TaggingJob owns a ClassificationStage whose stored completion
//                          closure captures the job: one root cycle per photo (three), each holding its
//                          photo, its decoded image (the library and its image cache are gone) and the
//                          job's other stage.
//     PhotoTagger fixed    the completion captures `[weak self]`: everything is freed.

/// Opens the library, tags its photos (a task per photo) and closes it. Returns the number of tags.
@MainActor
@inline(never)
func tagLibrary() async -> Int {
    let library = LibraryViewController(photos: [
        Photo(name: "IMG_0001.heic", width: 4032, height: 3024),
        Photo(name: "IMG_0002.heic", width: 3024, height: 4032),
        Photo(name: "IMG_0003.heic", width: 4032, height: 3024),
    ])
    await library.tagAll()
    return library.index.photosByTag.count
}

let tags = await tagLibrary()
print("PhotoTagger (\(mode.rawValue)): \(tags) distinct tags; \(freedJobs) of 3 tagging jobs were freed.")
