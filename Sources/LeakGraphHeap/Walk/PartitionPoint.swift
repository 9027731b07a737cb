/// The first position in `0 ..< count` where `isBefore` is false, for a predicate that is true for a
/// prefix of the positions and false after it (a binary search's lower bound).
///
/// - Complexity: O(log *count*) calls of `isBefore`.
func partitionPoint(_ count: Int, isBefore: (Int) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
        let middle = (low + high) / 2
        if isBefore(middle) {
            low = middle + 1
        } else {
            high = middle
        }
    }
    return low
}
