/**
 * Deterministic synthetic memories for the recall latency benchmark: varied, realistic sentences of
 * roughly 10–30 words (personal facts, preferences, work notes, events, how-tos), each paired with a
 * paraphrase-like question that the memory answers. Built from templates and word lists with a seeded
 * generator, so every run stores exactly the same texts.
 */
import { seededRandom } from './lib/stats';

/** One generated memory and a question it answers (worded differently from the memory). */
export interface SyntheticMemory {
  content: string;
  query: string;
}

const NAMES = [
  'Alice', 'Bruno', 'Chen', 'Dana', 'Elif', 'Farah', 'Gabriel', 'Hana', 'Ivan', 'Jamal', 'Keiko', 'Lars', 'Maya', 'Nikhil',
  'Olga', 'Pedro', 'Quinn', 'Rosa', 'Samir', 'Tomás', 'Uma', 'Viktor', 'Wen', 'Ximena', 'Yusuf', 'Zoe', 'Amara', 'Ben',
  'Carla', 'Diego', 'Emma', 'Felix', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Leo', 'Mila', 'Noah', 'Priya', 'Rafael',
  'Sofia', 'Theo', 'Valentina', 'Will', 'Yara', 'Zain',
];
const CITIES = [
  'Lisbon', 'Osaka', 'Toronto', 'Nairobi', 'Berlin', 'Melbourne', 'Bogotá', 'Reykjavik', 'Seoul', 'Marseille', 'Austin',
  'Kraków', 'Cape Town', 'Hanoi', 'Edinburgh', 'Vancouver', 'Istanbul', 'Porto', 'Denver', 'Valencia', 'Dublin', 'Oslo',
  'Montreal', 'Mumbai', 'Lima', 'Prague', 'Helsinki', 'Singapore',
];
const RELATIVES = ['sister', 'brother', 'mother', 'father', 'grandmother', 'uncle', 'aunt', 'cousin', 'daughter', 'son', 'partner', 'best friend'];
const FOODS = ['peanuts', 'shellfish', 'gluten', 'dairy', 'sesame', 'eggs', 'strawberries', 'soy', 'tree nuts', 'kiwi', 'mustard', 'celery'];
const DRINKS = ['oat milk latte', 'green tea', 'black coffee', 'chai', 'flat white', 'matcha', 'espresso', 'rooibos tea', 'hot chocolate', 'cold brew'];
const JOBS = [
  'nurse', 'data engineer', 'high school teacher', 'architect', 'product designer', 'pharmacist', 'civil engineer', 'chef',
  'lawyer', 'veterinarian', 'accountant', 'journalist', 'electrician', 'marine biologist', 'pilot', 'librarian',
];
const COMPANIES = [
  'Northwind', 'Globex', 'Initech', 'Umbrella Labs', 'Acme Logistics', 'Blue Harbor', 'Vertex Health', 'Solaris Energy',
  'Pinecrest Bank', 'Helios Media', 'Quantum Foods', 'Riverbend School',
];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const SKILLS = [
  'the cello', 'pottery', 'Portuguese', 'rock climbing', 'watercolour painting', 'salsa dancing', 'chess', 'woodworking',
  'Japanese calligraphy', 'sourdough baking', 'sailing', 'the guitar', 'photography', 'Mandarin', 'fencing', 'beekeeping',
];
const PLACES = ['community centre', 'night school', 'small studio', 'public library', 'local club', 'university workshop', 'rooftop garden', 'youth hostel'];
const OBJECTS = ['passport', 'phone charger', 'reading glasses', 'wallet', 'camera', 'umbrella', 'house keys', 'laptop', 'scarf', 'headphones'];
const VENUES = ['train station', 'museum', 'airport', 'hotel lobby', 'night market', 'beach', 'concert hall', 'ferry terminal'];
const PETS = ['dog', 'cat', 'rabbit', 'parrot', 'tortoise', 'hamster', 'ferret', 'goldfish'];
const PET_NAMES = ['Biscuit', 'Pepper', 'Mochi', 'Luna', 'Ziggy', 'Olive', 'Pixel', 'Noodle', 'Maple', 'Comet', 'Tofu', 'Rusty'];
const PET_ACTIVITIES = ['chasing leaves', 'long walks by the river', 'sleeping on the windowsill', 'chewing cardboard', 'watching birds', 'playing fetch'];
const TOPICS = [
  'sleep', 'urban gardening', 'climate policy', 'ancient Rome', 'personal finance', 'habit formation', 'jazz history',
  'ocean currents', 'negotiation', 'the history of maps', 'machine learning', 'minimalism', 'stoic philosophy', 'nutrition',
];
const BOOKS = [
  'The Quiet Hours', 'Maps of Salt', 'A Field Guide to Attention', 'Small Fires', 'The Long Table', 'Notes from the Harbour',
  'The Clockmaker’s Garden', 'Borrowed Light', 'Thinking in Rivers', 'The Patient Gardener',
];
const PROJECTS = ['billing', 'onboarding', 'search', 'mobile app', 'data warehouse', 'checkout', 'reporting', 'notifications'];
const COMPONENTS = ['integration', 'payment', 'login', 'export', 'migration', 'end-to-end', 'load', 'accessibility'];
const PLATFORMS = ['the staging cluster', 'the CI pipeline', 'the Android emulator', 'Safari on iPad', 'the Windows build agents', 'the nightly job'];
const SERVICES = ['invoice', 'email', 'thumbnail', 'search-indexer', 'auth', 'report', 'webhook', 'scheduler'];
const TOOLS = ['deploy.sh', 'release', 'make ship', 'rollout', 'publish', 'promote'];
const DOCUMENTS = ['passport', 'driving licence', 'residence permit', 'health insurance card', 'library card', 'car registration'];
const FEELINGS = ['excited', 'nervous', 'relieved', 'disappointed', 'proud', 'overwhelmed', 'hopeful', 'frustrated'];
const SEASONS = ['spring', 'summer', 'autumn', 'winter'];
const DISTANCES = ['10 km', 'half-marathon', 'marathon', '5 km', 'trail'];
const BODY_PARTS = ['knee', 'ankle', 'shoulder', 'back', 'hip', 'calf'];
const LANDMARKS = ['old bridge', 'central park', 'bakery on the corner', 'bus depot', 'cathedral', 'river promenade', 'farmers market'];
const HOBBIES = ['board games', 'birdwatching', 'vinyl records', 'bouldering', 'karaoke', 'knitting', 'trail running', 'stargazing'];
const MEALS = ['ramen', 'tacos', 'mushroom risotto', 'lentil curry', 'grilled sardines', 'dumplings', 'pad thai', 'shakshuka'];

type Pick = <T>(list: readonly T[]) => T;
type Template = (pick: Pick, int: (lo: number, hi: number) => number) => SyntheticMemory;

/** The word with its indefinite article ("an architect", "a nurse"). */
const an = (word: string): string => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;

const pron = (pick: Pick): { subj: string; poss: string; obj: string } => pick([
  { subj: 'she', poss: 'her', obj: 'her' },
  { subj: 'he', poss: 'his', obj: 'him' },
  { subj: 'they', poss: 'their', obj: 'them' },
]);

/** Each template returns a memory and a paraphrase-like question about the same facts. */
const TEMPLATES: Template[] = [
  (pick) => {
    const [n, s, pl, c] = [pick(NAMES), pick(SKILLS), pick(PLACES), pick(CITIES)];
    const day = pick(WEEKDAYS);
    return {
      content: `${n} mentioned starting to learn ${s} at ${an(pl)} in ${c}, with practice every ${day} evening after work.`,
      query: `What instrument or hobby is ${n} taking lessons in?`,
    };
  },
  (pick) => {
    const [n, r, f, d] = [pick(NAMES), pick(RELATIVES), pick(FOODS), pick(WEEKDAYS)];
    return {
      content: `${n}'s ${r} is seriously allergic to ${f}, so the family dinner on ${d} has to avoid any dish that contains it.`,
      query: `Which food allergy should I keep in mind when cooking for ${n}'s family?`,
    };
  },
  (pick) => {
    const [n, d1, l] = [pick(NAMES), pick(DRINKS), pick(LANDMARKS)];
    const d2 = pick(DRINKS.filter((x) => x !== d1));
    return {
      content: `${n} prefers ${d1} to ${d2} in the morning and usually buys it from the café next to the ${l}.`,
      query: `What does ${n} like to drink first thing in the day?`,
    };
  },
  (pick) => {
    const [n, p, o, v, c] = [pick(NAMES), pron(pick), pick(OBJECTS), pick(VENUES), pick(CITIES)];
    const n2 = pick(NAMES.filter((x) => x !== n));
    return {
      content: `During the trip to ${c}, ${n} lost ${p.poss} ${o} at the ${v} and had to borrow one from ${n2} for the rest of the week.`,
      query: `Where did ${n} misplace something while travelling?`,
    };
  },
  (pick) => {
    const [n, j, co, d, c] = [pick(NAMES), pick(JOBS), pick(COMPANIES), pick(WEEKDAYS), pick(CITIES)];
    return {
      content: `${n} works as ${an(j)} at ${co} in ${c} and is usually unavailable on ${d} afternoons because of team meetings.`,
      query: `What is ${n}'s profession and who employs them?`,
    };
  },
  (pick) => {
    const [n, p, b, t] = [pick(NAMES), pron(pick), pick(BOOKS), pick(TOPICS)];
    return {
      content: `${n} recommended the book "${b}" about ${t} and said the last chapter completely changed ${p.poss} mind about it.`,
      query: `Which book on ${t} did someone suggest I read?`,
    };
  },
  (pick, int) => {
    const [p, doc, m, c] = [pron(pick), pick(DOCUMENTS), pick(MONTHS), pick(CITIES)];
    const day = int(1, 28);
    return {
      content: `The user asked to be reminded to renew ${p.poss} ${doc} before ${m} ${day}, since the office in ${c} takes weeks to process it.`,
      query: `When is the deadline for renewing the ${doc}?`,
    };
  },
  (pick) => {
    const [team, proj, comp, plat, d] = [pick(COMPANIES), pick(PROJECTS), pick(COMPONENTS), pick(PLATFORMS), pick(WEEKDAYS)];
    return {
      content: `The ${team} ${proj} team moved the release to ${d} because the ${comp} tests kept failing on ${plat}.`,
      query: `Why was the ${proj} launch postponed?`,
    };
  },
  (pick, int) => {
    const [n, s, dist, c, bp] = [pick(NAMES), pick(SEASONS), pick(DISTANCES), pick(CITIES), pick(BODY_PARTS)];
    const minutes = int(25, 290);
    return {
      content: `Last ${s}, ${n} ran ${an(dist)} race in ${c} and finished in ${minutes} minutes despite a painful ${bp}.`,
      query: `How did ${n} do in the running event?`,
    };
  },
  (pick) => {
    const [n, p, l] = [pick(NAMES), pron(pick), pick(LANDMARKS)];
    const n2 = pick(NAMES.filter((x) => x !== n));
    return {
      content: `${n} keeps ${p.poss} spare house keys with ${n2}, who lives two streets away near the ${l}.`,
      query: `Who has a copy of ${n}'s keys?`,
    };
  },
  (pick) => {
    const [svc, tool, plat] = [pick(SERVICES), pick(TOOLS), pick(PLATFORMS)];
    const dir = pick(['ops', 'scripts', 'deploy', 'infra', 'tools']);
    return {
      content: `To deploy the ${svc} service, run ${tool} from the ${dir} folder, then watch the logs on ${plat} for at least ten minutes.`,
      query: `How do I ship a new version of the ${svc} service?`,
    };
  },
  (pick) => {
    const [n, f, co, j, c] = [pick(NAMES), pick(FEELINGS), pick(COMPANIES), pick(JOBS), pick(CITIES)];
    return {
      content: `${n} felt ${f} after the interview with ${co}, because they offered ${an(j)} position in ${c} starting next month.`,
      query: `How did ${n} react to the job offer?`,
    };
  },
  (pick) => {
    const [n, pet, pn, c, act] = [pick(NAMES), pick(PETS), pick(PET_NAMES), pick(CITIES), pick(PET_ACTIVITIES)];
    return {
      content: `The ${pet} that ${n} adopted from the animal shelter in ${c} is called ${pn} and loves ${act}.`,
      query: `What is the name of ${n}'s pet?`,
    };
  },
  (pick) => {
    const [n, h, d, l] = [pick(NAMES), pick(HOBBIES), pick(WEEKDAYS), pick(LANDMARKS)];
    const n2 = pick(NAMES.filter((x) => x !== n));
    return {
      content: `${n} and ${n2} meet every ${d} near the ${l} for ${h}, a tradition they started back in university.`,
      query: `What do ${n} and a friend do together each week?`,
    };
  },
  (pick) => {
    const [n, meal, c, r] = [pick(NAMES), pick(MEALS), pick(CITIES), pick(RELATIVES)];
    return {
      content: `${n}'s favourite comfort food is ${meal}, a recipe ${n} learned from ${an(r)} while living in ${c}.`,
      query: `Which dish does ${n} cook when feeling down?`,
    };
  },
  (pick, int) => {
    const [n, p, m, c, t] = [pick(NAMES), pron(pick), pick(MONTHS), pick(CITIES), pick(TOPICS)];
    const year = int(2015, 2024);
    return {
      content: `In ${m} ${year} ${n} gave ${p.poss} first conference talk in ${c}, on ${t}, and was surprised by how many questions came afterwards.`,
      query: `When and where did ${n} first speak at a conference?`,
    };
  },
];

/**
 * `count` distinct memories, deterministic for a given `seed`. Templates are picked uniformly; a
 * duplicate sentence is simply drawn again (the space of combinations is in the billions, so this is
 * rare). Throws if it cannot find enough distinct sentences.
 */
export function generateMemories(count: number, seed = 42): SyntheticMemory[] {
  const random = seededRandom(seed);
  const pick: Pick = (list) => list[Math.floor(random() * list.length)];
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const seen = new Set<string>();
  const out: SyntheticMemory[] = [];
  for (let attempts = 0; out.length < count; attempts++) {
    if (attempts > count * 10) throw new Error(`could only generate ${out.length} distinct memories`);
    const memory = pick(TEMPLATES)(pick, int);
    if (seen.has(memory.content)) continue;
    seen.add(memory.content);
    out.push(memory);
  }
  return out;
}
