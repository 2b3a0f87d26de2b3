/**
 * Page themes: what kind of site a task is (a bakery, a SaaS product, a portfolio…), with the content
 * pools, preferred hues, typical sections and the vague words its public description is written from.
 * Themes vary pages in content and tendencies; the generator still draws colours, layout and section
 * choice per task, so a theme never determines a design.
 *
 * @module
 */
import type { SectionKind } from "./design.ts";
import type { Hue } from "./palette.ts";

/** A page theme. */
export interface Theme {
  /** Stable identifier (snake_case), stored as the task's `family`. */
  readonly name: string;
  /** How the description names the site ("a bakery", "a design agency"). */
  readonly subject: string;
  /** Words a reader would look for to recognise the theme in a description (lower case). */
  readonly keywords: readonly string[];
  /** Mood adjectives for the description ("warm", "friendly"). */
  readonly moods: readonly string[];
  /** Hues the theme's backgrounds and accents are usually drawn from. */
  readonly hues: readonly Hue[];
  /** Preferred font; the generator keeps it with probability 0.6. */
  readonly font: "sans" | "serif" | "mono";
  /** Probability of each optional section (nav, hero and footer are always present). */
  readonly optional: Readonly<Partial<Record<SectionKind, number>>>;
  /** Vague phrases describing what a section offers, for the description ("a menu of pastries"). */
  readonly hints: Readonly<Partial<Record<SectionKind, string>>>;
  readonly brands: readonly string[];
  readonly navLinks: readonly string[];
  readonly heroHeadlines: readonly string[];
  readonly heroSublines: readonly string[];
  readonly buttons: readonly string[];
  readonly featureHeadlines: readonly string[];
  /** Feature items: [title, text]. */
  readonly features: readonly (readonly [string, string])[];
  readonly galleryHeadlines: readonly string[];
  readonly captions: readonly string[];
  /** Testimonials: [author, quote]. */
  readonly testimonials: readonly (readonly [string, string])[];
  /** Pricing tiers, cheapest first: [name, price]. */
  readonly tiers: readonly (readonly [string, string])[];
  readonly ctaHeadlines: readonly string[];
  readonly ctaSublines: readonly string[];
}

/**
 * Headlines any theme's testimonials section may use.
 *
 * @example
 * ```ts
 * import { TESTIMONIAL_HEADLINES } from "./themes.ts";
 * console.log(TESTIMONIAL_HEADLINES[0]);
 * ```
 */
export const TESTIMONIAL_HEADLINES = ["What people say", "Kind words", "Loved by our customers", "Reviews"];
/**
 * Headlines any theme's pricing section may use.
 *
 * @example
 * ```ts
 * import { PRICING_HEADLINES } from "./themes.ts";
 * console.log(PRICING_HEADLINES.length);
 * ```
 */
export const PRICING_HEADLINES = ["Pricing", "Plans and prices", "Simple pricing", "Choose your plan"];
/**
 * Footer links any theme may use.
 *
 * @example
 * ```ts
 * import { FOOTER_LINKS } from "./themes.ts";
 * console.log(FOOTER_LINKS.includes("Privacy")); // true
 * ```
 */
export const FOOTER_LINKS = ["Privacy", "Terms", "Contact", "Careers", "Instagram", "Newsletter", "FAQ"];

/**
 * Every theme, in round-robin order of the generator.
 *
 * @example
 * ```ts
 * import { THEMES } from "./themes.ts";
 * console.log(THEMES.map((t) => t.name).join(", "));
 * ```
 */
export const THEMES: readonly Theme[] = [
  {
    name: "bakery",
    subject: "a neighbourhood bakery",
    keywords: ["bakery", "pastries", "bread"],
    moods: ["warm", "friendly", "homely", "inviting", "cosy"],
    hues: ["amber", "orange", "pink", "yellow"],
    font: "serif",
    optional: { features: 0.8, gallery: 0.6, testimonials: 0.5, pricing: 0.2, cta: 0.6 },
    hints: {
      features: "a menu of pastries",
      gallery: "photos of fresh bakes",
      testimonials: "words from regulars",
      pricing: "a few box options",
      cta: "a way to order online",
    },
    brands: [
      "Golden Crust",
      "Rise & Shine Bakery",
      "Little Oven",
      "Flour House",
      "Crumb & Co.",
      "Sweet Loaf",
    ],
    navLinks: ["Menu", "About", "Order", "Visit", "Catering"],
    heroHeadlines: ["Baked fresh every morning", "Bread worth waking up for", "Your daily dose of butter"],
    heroSublines: [
      "Sourdough, croissants and cakes made by hand.",
      "Small batches, local flour, big smiles.",
    ],
    buttons: ["Order now", "See the menu", "Visit us"],
    featureHeadlines: ["From our ovens", "Today's favourites", "Our menu"],
    features: [
      ["Sourdough", "Slow fermented for 36 hours."],
      ["Croissants", "Flaky layers of French butter."],
      ["Cinnamon rolls", "Soft, sticky and still warm."],
      ["Celebration cakes", "Made to order for your day."],
      ["Rye loaves", "Dark, dense and full of flavour."],
      ["Fruit tarts", "Seasonal fruit on crisp pastry."],
    ],
    galleryHeadlines: ["Fresh from the oven", "A look inside", "Our bakes"],
    captions: ["Morning loaves", "The counter", "Pastry case", "Wedding cake", "Baguettes", "Our bakers"],
    testimonials: [
      ["Maria G.", "The best croissant in town, hands down."],
      ["Tom B.", "I come every Saturday for the sourdough."],
      ["Aisha K.", "Our wedding cake was perfect."],
      ["Leo P.", "Friendly staff and amazing coffee."],
    ],
    tiers: [["Small box", "$12"], ["Family box", "$24"], ["Party box", "$45"], ["Weekly bread", "$30"]],
    ctaHeadlines: ["Order for pickup today", "Planning a party?"],
    ctaSublines: ["Place your order before 10 am and collect it fresh.", "We cater events of every size."],
  },
  {
    name: "agency",
    subject: "a creative agency",
    keywords: ["agency", "creative", "studio"],
    moods: ["playful", "bold", "vibrant", "confident", "edgy"],
    hues: ["purple", "pink", "indigo", "yellow"],
    font: "sans",
    optional: { features: 0.8, gallery: 0.7, testimonials: 0.6, pricing: 0.2, cta: 0.7 },
    hints: {
      features: "the services it offers",
      gallery: "its portfolio of projects",
      testimonials: "client testimonials",
      pricing: "its engagement packages",
      cta: "an invitation to start a project",
    },
    brands: ["Pixel & Pine", "Loud Studio", "Brightside", "Northbound Creative", "Kite Agency"],
    navLinks: ["Work", "Services", "About", "Team", "Contact"],
    heroHeadlines: ["We make brands impossible to ignore", "Ideas that move people", "Design with a pulse"],
    heroSublines: ["Strategy, identity and digital work for bold companies.", "A small team with big ideas."],
    buttons: ["Start a project", "See our work", "Say hello"],
    featureHeadlines: ["What we do", "Our services", "How we help"],
    features: [
      ["Branding", "Identities that stick."],
      ["Web design", "Sites people enjoy using."],
      ["Campaigns", "Stories told across channels."],
      ["Motion", "Animation that explains."],
      ["Strategy", "Clear plans before pixels."],
      ["Content", "Words and images that work."],
    ],
    galleryHeadlines: ["Selected work", "Recent projects", "Portfolio"],
    captions: ["Rebrand for a brewery", "Festival campaign", "App launch", "Museum signage", "Packaging"],
    testimonials: [
      ["Dana R., CMO", "They understood us in one meeting."],
      ["Chris L., founder", "Our sign-ups doubled after the relaunch."],
      ["Priya S., director", "Fast, thoughtful and fun to work with."],
    ],
    tiers: [["Sprint", "$4,000"], ["Project", "$12,000"], ["Partner", "$25,000"], ["Retainer", "$6,000/mo"]],
    ctaHeadlines: ["Have a project in mind?", "Let's build something bold"],
    ctaSublines: ["Tell us about it and we'll reply within a day.", "Book a free thirty-minute call."],
  },
  {
    name: "saas",
    subject: "a software product for small teams",
    keywords: ["software", "product", "teams", "app"],
    moods: ["clean", "modern", "trustworthy", "minimal", "professional"],
    hues: ["blue", "indigo", "teal", "gray"],
    font: "sans",
    optional: { features: 0.95, gallery: 0.2, testimonials: 0.6, pricing: 0.8, cta: 0.7 },
    hints: {
      features: "its key features",
      gallery: "screenshots of the app",
      testimonials: "quotes from customers",
      pricing: "its plans",
      cta: "a free trial offer",
    },
    brands: ["TaskFlow", "Beacon", "Ledgerly", "Syncwise", "Orbit HQ", "Planly"],
    navLinks: ["Product", "Features", "Pricing", "Docs", "Log in"],
    heroHeadlines: [
      "Work together, ship faster",
      "All your projects in one place",
      "Less busywork, more progress",
    ],
    heroSublines: ["Plan, track and deliver with your whole team.", "Set up in minutes, loved for years."],
    buttons: ["Start free trial", "Get started", "Book a demo"],
    featureHeadlines: ["Everything you need", "Why teams switch", "Features"],
    features: [
      ["Shared boards", "See every task at a glance."],
      ["Automations", "Let rules do the routine work."],
      ["Reports", "Know where time goes."],
      ["Integrations", "Connects to the tools you use."],
      ["Secure by default", "Encryption and audit logs."],
      ["Mobile apps", "Stay in the loop anywhere."],
    ],
    galleryHeadlines: ["See it in action", "Screenshots", "A quick tour"],
    captions: ["Board view", "Timeline", "Reports", "Inbox", "Settings"],
    testimonials: [
      ["Sam T., engineering lead", "We replaced three tools with one."],
      ["Nora V., operations", "Onboarding took an afternoon."],
      ["Ken M., founder", "Our weekly meeting got shorter."],
    ],
    tiers: [["Free", "$0"], ["Team", "$12"], ["Business", "$29"], ["Enterprise", "$79"]],
    ctaHeadlines: ["Try it free for 14 days", "Ready to get organised?"],
    ctaSublines: ["No credit card required.", "Join thousands of teams already on board."],
  },
  {
    name: "portfolio",
    subject: "a freelance photographer's portfolio",
    keywords: ["photographer", "portfolio", "freelance"],
    moods: ["elegant", "minimal", "calm", "refined", "artistic"],
    hues: ["gray", "teal", "amber", "indigo"],
    font: "serif",
    optional: { features: 0.4, gallery: 0.95, testimonials: 0.5, pricing: 0.4, cta: 0.5 },
    hints: {
      features: "the kinds of shoots on offer",
      gallery: "a selection of photographs",
      testimonials: "notes from past clients",
      pricing: "session packages",
      cta: "a booking invitation",
    },
    brands: ["Ana Lima Photo", "Jonas Berg", "Still Light", "Mira Okafor", "Field & Frame"],
    navLinks: ["Portfolio", "About", "Services", "Journal", "Contact"],
    heroHeadlines: [
      "Moments, quietly kept",
      "Light, people and places",
      "Photographs that feel like memories",
    ],
    heroSublines: [
      "Weddings, portraits and travel, based in Lisbon.",
      "Available for commissions worldwide.",
    ],
    buttons: ["View portfolio", "Book a session", "Get in touch"],
    featureHeadlines: ["What I shoot", "Services", "Ways to work together"],
    features: [
      ["Weddings", "The whole day, candidly."],
      ["Portraits", "Natural light sessions."],
      ["Travel", "Editorial work on location."],
      ["Products", "Clean studio shots."],
      ["Events", "Conferences and launches."],
    ],
    galleryHeadlines: ["Recent work", "Selected photographs", "Portfolio"],
    captions: [
      "Coastline at dusk",
      "Market morning",
      "First dance",
      "Mountain road",
      "Studio portrait",
      "Old town",
    ],
    testimonials: [
      ["Elena & Marc", "Every photo made us cry happy tears."],
      ["Ruth H.", "She made us feel at ease from the start."],
      ["Oskar D.", "The travel series exceeded the brief."],
    ],
    tiers: [["Mini session", "$150"], ["Portrait", "$350"], ["Half day", "$900"], ["Wedding", "$2,400"]],
    ctaHeadlines: ["Let's make something together", "Booking next season"],
    ctaSublines: ["Write to me with your date and idea.", "A few dates are still open."],
  },
  {
    name: "restaurant",
    subject: "a family restaurant",
    keywords: ["restaurant", "dinner", "dishes"],
    moods: ["rustic", "welcoming", "elegant", "lively", "hearty"],
    hues: ["red", "amber", "green", "gray"],
    font: "serif",
    optional: { features: 0.8, gallery: 0.6, testimonials: 0.6, pricing: 0.3, cta: 0.7 },
    hints: {
      features: "signature dishes",
      gallery: "pictures of the dining room",
      testimonials: "guest reviews",
      pricing: "set menus",
      cta: "table reservations",
    },
    brands: ["Trattoria Nonna", "The Olive Table", "Ember & Salt", "Casa Verde", "Harbour Kitchen"],
    navLinks: ["Menu", "Reservations", "Events", "About", "Find us"],
    heroHeadlines: [
      "Food made with love since 1987",
      "Seasonal plates, open fire",
      "Come hungry, leave happy",
    ],
    heroSublines: ["Family recipes and local produce.", "Open for lunch and dinner, six days a week."],
    buttons: ["Book a table", "View menu", "Order takeaway"],
    featureHeadlines: ["Signature dishes", "From the kitchen", "Chef's picks"],
    features: [
      ["Handmade pasta", "Rolled fresh every afternoon."],
      ["Wood-fired pizza", "Ninety seconds at 450 degrees."],
      ["Grilled fish", "Today's catch with lemon."],
      ["Tiramisu", "Nonna's recipe, unchanged."],
      ["Garden salads", "Greens from our own plot."],
      ["Slow-cooked lamb", "Eight hours with rosemary."],
    ],
    galleryHeadlines: ["Inside the restaurant", "Our dining room", "A taste of the evening"],
    captions: ["The terrace", "Open kitchen", "Private room", "Wine cellar", "Sunday lunch"],
    testimonials: [
      ["Giulia F.", "Tastes exactly like home."],
      ["Paul W.", "The lamb is worth the trip alone."],
      ["Hana Y.", "Warm service and a lovely terrace."],
    ],
    tiers: [["Lunch menu", "$22"], ["Dinner menu", "$45"], ["Tasting menu", "$80"], ["Wine pairing", "$35"]],
    ctaHeadlines: ["Reserve your table", "Hosting a celebration?"],
    ctaSublines: ["Tables fill up fast on weekends.", "Our private room seats up to thirty."],
  },
  {
    name: "fitness",
    subject: "a local gym",
    keywords: ["gym", "fitness", "training"],
    moods: ["energetic", "bold", "motivating", "strong", "dynamic"],
    hues: ["red", "orange", "gray", "green"],
    font: "sans",
    optional: { features: 0.9, gallery: 0.4, testimonials: 0.6, pricing: 0.8, cta: 0.6 },
    hints: {
      features: "the classes on offer",
      gallery: "photos of the facilities",
      testimonials: "member stories",
      pricing: "membership options",
      cta: "a free trial session",
    },
    brands: ["IronWorks Gym", "Pulse Fitness", "Peak Athletics", "Core Club", "Lift Lab"],
    navLinks: ["Classes", "Trainers", "Membership", "Schedule", "Join"],
    heroHeadlines: ["Stronger every week", "Train hard, feel better", "Your best shape starts here"],
    heroSublines: ["Classes, coaching and open gym from 6 am.", "Friendly coaches for every level."],
    buttons: ["Join today", "Book a free class", "See the schedule"],
    featureHeadlines: ["Our classes", "How we train", "What's included"],
    features: [
      ["Strength", "Barbells and good form."],
      ["HIIT", "Thirty minutes, all in."],
      ["Yoga", "Mobility and calm."],
      ["Spin", "Music-driven rides."],
      ["Boxing", "Pads, gloves and cardio."],
      ["Personal training", "One-to-one plans."],
    ],
    galleryHeadlines: ["The space", "Inside the gym", "Our facilities"],
    captions: ["Weights floor", "Studio", "Spin room", "Recovery area", "Outdoor track"],
    testimonials: [
      ["Marcus J.", "Down ten kilos and up a lot of confidence."],
      ["Lena S.", "The coaches actually know my name."],
      ["Omar A.", "Best early-morning classes in the city."],
    ],
    tiers: [["Off-peak", "$29"], ["Standard", "$49"], ["Unlimited", "$69"], ["Coaching", "$120"]],
    ctaHeadlines: ["Your first class is on us", "Ready to start?"],
    ctaSublines: ["Bring a friend and both train free.", "No joining fee this month."],
  },
  {
    name: "travel",
    subject: "a small travel company",
    keywords: ["travel", "trips", "tours"],
    moods: ["adventurous", "breezy", "sunny", "relaxed", "inspiring"],
    hues: ["teal", "blue", "yellow", "green"],
    font: "sans",
    optional: { features: 0.7, gallery: 0.8, testimonials: 0.5, pricing: 0.5, cta: 0.6 },
    hints: {
      features: "the kinds of trips",
      gallery: "destination photos",
      testimonials: "traveller reviews",
      pricing: "tour packages",
      cta: "a newsletter sign-up",
    },
    brands: ["Wander Co.", "Blue Compass", "Far & Near", "Sunpath Tours", "Tidewater Trips"],
    navLinks: ["Destinations", "Tours", "Stories", "About", "Contact"],
    heroHeadlines: ["Go somewhere new", "Small groups, big adventures", "Travel slower, see more"],
    heroSublines: ["Hand-planned trips with local guides.", "From island hops to mountain treks."],
    buttons: ["Find a trip", "Explore tours", "Plan with us"],
    featureHeadlines: ["Ways to travel", "Why travel with us", "Our trips"],
    features: [
      ["Island hopping", "Ferries, beaches and seafood."],
      ["Mountain treks", "Guided hikes with huts."],
      ["City breaks", "Food tours and museums."],
      ["Safaris", "Sunrise drives with rangers."],
      ["Rail journeys", "Scenery from the window."],
    ],
    galleryHeadlines: ["Where we go", "Destinations", "From our trips"],
    captions: ["Santorini", "Patagonia", "Kyoto", "Lisbon", "Serengeti", "Iceland"],
    testimonials: [
      ["Beth & Jon", "Every detail was taken care of."],
      ["Rafael M.", "Our guide felt like an old friend."],
      ["Ingrid L.", "The best holiday we have had."],
    ],
    tiers: [["Weekend", "$450"], ["One week", "$1,200"], ["Two weeks", "$2,300"], ["Private tour", "$3,900"]],
    ctaHeadlines: ["Get trip ideas by email", "Where to next?"],
    ctaSublines: ["One letter a month, no spam.", "Tell us your dream trip."],
  },
  {
    name: "bookstore",
    subject: "an independent bookshop",
    keywords: ["bookshop", "books", "reading"],
    moods: ["cosy", "quiet", "literary", "charming", "thoughtful"],
    hues: ["green", "amber", "red", "indigo"],
    font: "serif",
    optional: { features: 0.8, gallery: 0.5, testimonials: 0.5, pricing: 0.3, cta: 0.6 },
    hints: {
      features: "staff picks",
      gallery: "a peek at the shelves",
      testimonials: "notes from readers",
      pricing: "a book subscription",
      cta: "the book club",
    },
    brands: ["Paper Lantern Books", "The Reading Nook", "Inkwell & Co.", "Chapter House", "Quiet Pages"],
    navLinks: ["New in", "Staff picks", "Events", "Book club", "Visit"],
    heroHeadlines: ["Find your next favourite book", "Stories for every shelf", "A home for readers"],
    heroSublines: ["New releases, used gems and a comfy chair.", "Hand-picked by people who love reading."],
    buttons: ["Browse books", "Join the club", "Visit the shop"],
    featureHeadlines: ["Staff picks", "This month's reads", "On our shelves"],
    features: [
      ["Fiction", "Novels we can't stop recommending."],
      ["Poetry", "Small books, big feelings."],
      ["Children's corner", "Picture books and first chapters."],
      ["History", "Well-told true stories."],
      ["Cookbooks", "Recipes worth the splatter."],
      ["Rare finds", "First editions and curiosities."],
    ],
    galleryHeadlines: ["Around the shop", "Our shelves", "Events and readings"],
    captions: ["Reading room", "Window display", "Author night", "Kids' corner", "Coffee bar"],
    testimonials: [
      ["Clara N.", "I always leave with one more book than planned."],
      ["David O.", "Their recommendations never miss."],
      ["Mei W.", "The book club changed my reading year."],
    ],
    tiers: [["One book a month", "$18"], ["Two books", "$32"], ["Gift box", "$40"], ["Collector", "$75"]],
    ctaHeadlines: ["Join our book club", "Come to a reading"],
    ctaSublines: ["We meet on the first Thursday of every month.", "Authors visit every other week."],
  },
  {
    name: "nonprofit",
    subject: "a community nonprofit",
    keywords: ["nonprofit", "community", "volunteers"],
    moods: ["hopeful", "warm", "honest", "caring", "uplifting"],
    hues: ["green", "teal", "orange", "blue"],
    font: "sans",
    optional: { features: 0.8, gallery: 0.5, testimonials: 0.6, pricing: 0.4, cta: 0.9 },
    hints: {
      features: "its programmes",
      gallery: "photos from community events",
      testimonials: "stories from the people it helps",
      pricing: "ways to donate",
      cta: "a call for volunteers",
    },
    brands: ["Common Ground", "Open Hands", "Green Streets", "Bright Futures Fund", "River Commons"],
    navLinks: ["Our work", "Get involved", "Stories", "About", "Donate"],
    heroHeadlines: [
      "Neighbours helping neighbours",
      "Growing a greener city",
      "Every child deserves a chance",
    ],
    heroSublines: ["Food, tutoring and gardens run by volunteers.", "Local projects, real results."],
    buttons: ["Donate now", "Volunteer", "Learn more"],
    featureHeadlines: ["Our programmes", "What we do", "How we help"],
    features: [
      ["Food bank", "Fresh groceries for 400 families."],
      ["Homework club", "Free tutoring after school."],
      ["Community gardens", "Twelve plots and counting."],
      ["Repair café", "Fix it instead of binning it."],
      ["Senior visits", "Company for those living alone."],
    ],
    galleryHeadlines: ["In the community", "Moments from our work", "Our volunteers"],
    captions: ["Planting day", "Food drive", "Street party", "Tutoring", "River clean-up"],
    testimonials: [
      ["Rosa, parent", "The homework club turned my son's grades around."],
      ["Ahmed, volunteer", "I came to help and found friends."],
      ["June, neighbour", "Our street feels like a village again."],
    ],
    tiers: [["Friend", "$5/mo"], ["Supporter", "$15/mo"], ["Champion", "$50/mo"], ["One-off gift", "$100"]],
    ctaHeadlines: ["Give an hour a week", "Help us reach more families"],
    ctaSublines: ["Volunteers are the heart of everything we do.", "Every donation goes to local projects."],
  },
  {
    name: "festival",
    subject: "a summer music festival",
    keywords: ["festival", "music", "lineup"],
    moods: ["loud", "colourful", "festive", "electric", "fun"],
    hues: ["pink", "purple", "yellow", "orange"],
    font: "mono",
    optional: { features: 0.8, gallery: 0.6, testimonials: 0.3, pricing: 0.9, cta: 0.6 },
    hints: {
      features: "the lineup",
      gallery: "photos from last year",
      testimonials: "what festival-goers said",
      pricing: "ticket options",
      cta: "an early-bird offer",
    },
    brands: ["Soundwave Fest", "Meadow Beats", "Night Bloom", "Lakeside Live", "Echo Park Weekend"],
    navLinks: ["Lineup", "Tickets", "Info", "Camping", "FAQ"],
    heroHeadlines: ["Three days of music by the lake", "Dance until sunrise", "The summer's loudest weekend"],
    heroSublines: ["Forty artists, four stages, one field.", "July 18 to 20, gates open at noon."],
    buttons: ["Get tickets", "See the lineup", "Plan your weekend"],
    featureHeadlines: ["Lineup", "On the stages", "Headliners"],
    features: [
      ["Main stage", "Big names every night."],
      ["Forest stage", "Electronic sets under the trees."],
      ["Acoustic tent", "Songwriters up close."],
      ["Late-night club", "Open until 4 am."],
      ["Food village", "Thirty street-food stalls."],
      ["Kids' field", "Workshops and face paint."],
    ],
    galleryHeadlines: ["Last summer", "Festival moments", "Memories"],
    captions: ["Main stage at night", "The crowd", "Lakeside sunset", "Campsite", "Confetti drop"],
    testimonials: [
      ["Jess, 2024", "Best weekend of my summer."],
      ["Malik, 2023", "Great sound and short queues."],
      ["Sofia, 2024", "The forest stage is magic."],
    ],
    tiers: [["Day ticket", "$79"], ["Weekend", "$189"], ["Weekend + camping", "$239"], ["VIP", "$399"]],
    ctaHeadlines: ["Early-bird tickets are live", "Don't miss out"],
    ctaSublines: ["Save 20% until the end of the month.", "Last year sold out in a week."],
  },
];

/**
 * The theme with this name.
 *
 * @example
 * ```ts
 * import { themeByName } from "./themes.ts";
 * themeByName("bakery").font; // "serif"
 * ```
 */
export function themeByName(name: string): Theme {
  const theme = THEMES.find((t) => t.name === name);
  if (!theme) {
    throw new RangeError(`unknown page theme ${name}; known: ${THEMES.map((t) => t.name).join(", ")}`);
  }
  return theme;
}
