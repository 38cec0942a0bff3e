/// Whose eyes a profile is shown to, which decides what of it they see.
enum ProfileView: Sendable {
    /// The account itself: everything.
    case owner
    /// One of the app's profile readers (hosts, admins): everything.
    case reader
    /// Another account of the app: age instead of the birth date, real names only when the
    /// owner shows them, a distance instead of the location.
    case member
}
