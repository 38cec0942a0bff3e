/// The user model: what one concurrently active user of each app does per minute, written down
/// from the five products' specifications (the seeds ARCHITECTURE.md names) and what
/// such apps' users are reported to do in a session. Every action arrives on its own Poisson
/// schedule, independent of the user's earlier actions' answers (open loop).
///
/// | app | share | per active user-minute |
/// |---|---|---|
/// | ÉLITE (ranked dating, 1:1 chat) | 40 % | 1 feed page, 6 swipes (1 in 5 a like, the rest passes), 3 chat messages to their match (each also delivered live on the match's stream), 0.5 history reads, 0.5 unread counts, 2 photo views (a photo set and one thumbnail through a signed URL), 0.2 account reads, 0.1 session opens (refresh + GetAccount + a new realtime stream), 0.02 email sign-ins and 0.005 sign-ups (scrypt, meant to be slow) |
/// | Swivo (group swiping) | 15 % | in sessions of three devices: 1 deck read, 6 option likes; a match ends the session and the group opens the next (create + two joins) |
/// | Momento (event camera) | 20 % | in events of ten guests: 0.5 photo uploads (a 640×480 PNG: upload + AddEventPhoto), 2 gallery views, 0.5 event reads |
/// | FirstDate (show viewers) | 15 % | 0.5 season lists, 1 episode list |
/// | The Unseen (encounters) | 10 % | in encounters of two: 2 message-count reports, 1 encounter read |
///
/// A user's realtime stream (ÉLITE) stays open for the whole run, as the app holds it while in
/// the foreground. Reads must answer within 100 ms at p99, writes within 250 ms, and fewer than
/// 0.1 % of actions may fail (the refusals a user is meant to meet, such as a like on a session
/// that another device's like just closed, are counted apart, not as failures).
enum UserModel {
    enum App: String, CaseIterable, Sendable {
        case elite, swivo, momento, firstdate, unseen

        /// Out of 100 concurrently active users.
        var share: Int {
            switch self {
            case .elite: 40
            case .swivo: 15
            case .momento: 20
            case .firstdate: 15
            case .unseen: 10
            }
        }

        /// Users that share state (a Swivo session, a Momento event, an encounter) join in groups.
        var groupSize: Int {
            switch self {
            case .elite: 2  // a matched pair chats
            case .swivo: 3
            case .momento: 10
            case .firstdate: 1
            case .unseen: 2
            }
        }
    }

    /// How an action's latency is judged.
    enum Kind: String, Sendable {
        case read, write

        /// The p99 an action of this kind must hold.
        var p99Limit: Duration { self == .read ? .milliseconds(100) : .milliseconds(250) }
    }

    /// An action one user does, `perMinute` times per minute on average.
    struct Rate: Sendable {
        var action: Action
        var perMinute: Double
    }

    /// What the users do; the raw value names the RPCs it makes.
    enum Action: String, CaseIterable, Sendable {
        case feed = "discovery GetFeed"
        case swipe = "discovery Swipe"
        case send = "messaging SendMessage"
        case history = "messaging ListMessages"
        case unread = "messaging GetUnreadCount"
        case photoView = "media GetPhotoSet + thumbnail GET"
        case account = "identity GetAccount"
        case sessionOpen = "identity RefreshSession + GetAccount + Subscribe"
        case emailSignIn = "identity SignInWithEmail"
        case signUp = "identity SignUpWithEmail"
        case deck = "discovery GetDeck"
        case likeOption = "discovery LikeOption"
        case upload = "media CreateUpload/UploadChunk + AddEventPhoto"
        case gallery = "media ListEventPhotos"
        case event = "media GetEvent"
        case seasons = "production ListSeasons"
        case episodes = "production ListEpisodes"
        case reportMessages = "messaging ReportMessages"
        case encounter = "messaging GetEncounter"
        /// Not scheduled: measured from the send's scheduled time to the recipient's stream.
        case delivery = "message delivery (send → recipient's stream)"
        /// Not scheduled: a Swivo group opening its next session after a match.
        case nextSession = "discovery CreateSession + 2 JoinSession"

        var kind: Kind {
            switch self {
            case .feed, .history, .unread, .photoView, .account, .deck, .gallery, .event, .seasons, .episodes, .encounter, .delivery:
                .read
            case .swipe, .send, .sessionOpen, .emailSignIn, .signUp, .likeOption, .upload, .reportMessages, .nextSession:
                .write
            }
        }
    }

    static func rates(_ app: App) -> [Rate] {
        switch app {
        case .elite:
            [Rate(action: .feed, perMinute: 1), Rate(action: .swipe, perMinute: 6), Rate(action: .send, perMinute: 3),
             Rate(action: .history, perMinute: 0.5), Rate(action: .unread, perMinute: 0.5), Rate(action: .photoView, perMinute: 2),
             Rate(action: .account, perMinute: 0.2), Rate(action: .sessionOpen, perMinute: 0.1),
             Rate(action: .emailSignIn, perMinute: 0.02), Rate(action: .signUp, perMinute: 0.005)]
        case .swivo:
            [Rate(action: .deck, perMinute: 1), Rate(action: .likeOption, perMinute: 6)]
        case .momento:
            [Rate(action: .upload, perMinute: 0.5), Rate(action: .gallery, perMinute: 2), Rate(action: .event, perMinute: 0.5)]
        case .firstdate:
            [Rate(action: .seasons, perMinute: 0.5), Rate(action: .episodes, perMinute: 1)]
        case .unseen:
            [Rate(action: .reportMessages, perMinute: 2), Rate(action: .encounter, perMinute: 1)]
        }
    }

    /// How many of `users` active users each app has (groups kept whole).
    static func split(_ users: Int) -> [App: Int] {
        var counts: [App: Int] = [:]
        for app in App.allCases {
            let wanted = users * app.share / 100
            counts[app] = max(app.groupSize, (wanted + app.groupSize - 1) / app.groupSize * app.groupSize)
        }
        return counts
    }

    /// Actions per second that `users` active users make on average.
    static func actionsPerSecond(_ users: Int) -> Double {
        split(users).reduce(0) { total, entry in total + Double(entry.value) * rates(entry.key).reduce(0) { $0 + $1.perMinute } / 60 }
    }
}
