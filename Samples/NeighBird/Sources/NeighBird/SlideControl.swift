/// Told when the slide control moves.
@MainActor
protocol SlideControlDelegate: AnyObject {
    func slideControl(_ control: SlideControl, didSlideTo value: Double)
}

/// A UISlider-like control (the chat's text size).
@MainActor
final class SlideControl {
    private(set) var value = 0.5
    /// THE LEAK: the control holds its delegate (the screen that owns the control) strongly. The fix is
    /// one word: `weak var delegate: (any SlideControlDelegate)?`.
    var delegate: (any SlideControlDelegate)?
    /// Where `fixed` keeps the delegate instead: the same property, made weak.
    weak var weakDelegate: (any SlideControlDelegate)?

    func setDelegate(_ delegate: any SlideControlDelegate) {
        if mode == .leak {
            self.delegate = delegate
        } else {
            weakDelegate = delegate
        }
    }

    func slide(to value: Double) {
        self.value = value
        (delegate ?? weakDelegate)?.slideControl(self, didSlideTo: value)
    }
}
