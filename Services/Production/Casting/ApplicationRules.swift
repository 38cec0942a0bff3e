import Foundation
import Contracts

/// What each step of the application wizard must hold, and the legal-name rule the consent
/// ritual's typed name is held to.
enum ApplicationRules {
    static let steps = ["about_you", "story", "look", "consent"]

    static func validate(_ about: Production.AboutYou) throws(ProductionError) {
        guard LegalName.isValid(about.legalName) else {
            throw .invalid("legal_name must be a full legal name: 2-100 characters, at least two words of letters")
        }
        guard (18...120).contains(about.age) else { throw .invalid("age must be 18-120") }
        guard about.bio.count <= 1_000 else { throw .invalid("bio is at most 1,000 characters") }
        guard about.neighborhood.count <= 100 else { throw .invalid("neighborhood is at most 100 characters") }
    }

    static func validate(_ story: Production.Story) throws(ProductionError) {
        guard (1...2_000).contains(story.whyMe.trimmingCharacters(in: .whitespacesAndNewlines).count) else {
            throw .invalid("why_me must be 1-2,000 characters")
        }
        guard story.quizAnswers.count <= 30 else { throw .invalid("at most 30 quiz answers") }
        for (question, answer) in story.quizAnswers {
            guard (1...100).contains(question.count) else { throw .invalid("a quiz question id is 1-100 characters") }
            guard answer.count <= 500 else { throw .invalid("quiz answer \(question) is longer than 500 characters") }
        }
    }

    static func validate(_ look: Production.Look) throws(ProductionError) {
        guard (1...6).contains(look.photoIDs.count) else { throw .invalid("look needs 1-6 photos") }
        guard look.photoIDs.allSatisfy({ (1...200).contains($0.count) }) else { throw .invalid("photo_ids must be media ids") }
        guard (1...200).contains(look.videoSelfieID.count) else { throw .invalid("video_selfie_id is required") }
    }

    static func validate(_ consent: Production.ConsentAcknowledgement) throws(ProductionError) {
        guard consent.acknowledged else { throw .invalid("the terms must be acknowledged") }
    }

    /// Statuses a producer may move an application to from `from`.
    static func allowed(from: Production.ApplicationStatus) -> [Production.ApplicationStatus] {
        switch from {
        case .pending: [.reviewing, .passed]
        case .reviewing: [.shortlisted, .passed]
        case .shortlisted: [.selected, .passed]
        default: []
        }
    }

    static func name(_ status: Production.ApplicationStatus) -> String {
        switch status {
        case .draft: "draft"
        case .pending: "pending"
        case .reviewing: "reviewing"
        case .shortlisted: "shortlisted"
        case .selected: "selected"
        case .passed: "passed"
        default: "unspecified"
        }
    }
}

/// A person's full legal name as typed: 2-100 characters, at least two words, letters with
/// hyphens, apostrophes and periods. Two spellings are the same name when they agree ignoring
/// case and runs of spaces.
enum LegalName {
    static func isValid(_ name: String) -> Bool {
        let normalized = normalize(name)
        guard (2...100).contains(normalized.count) else { return false }
        let words = normalized.split(separator: " ")
        guard words.count >= 2 else { return false }
        return words.allSatisfy { word in
            word.contains(where: \.isLetter)
                && word.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || "-'’.".unicodeScalars.contains($0) }
        }
    }

    static func normalize(_ name: String) -> String {
        name.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func same(_ a: String, _ b: String) -> Bool {
        normalize(a).lowercased() == normalize(b).lowercased()
    }
}
