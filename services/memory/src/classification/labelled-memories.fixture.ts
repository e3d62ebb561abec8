import type { MemoryType } from '@agent-memory/shared';

/**
 * Hand-labelled memories for the classifier spec, written independently of `TYPE_PROTOTYPES` (no sentence
 * or near-copy is shared with the prototypes). Two parts: `tuning` (8 per type; two cue regexes were widened
 * after looking at its errors; the first three of each type are "clear" cases that must always be right)
 * and `holdout` (4 per type, written after tuning; 16/20 right when first run, 17/20 after one regex fix).
 */
export const LABELLED_MEMORIES: ReadonlyArray<{ text: string; type: MemoryType; set: 'tuning' | 'holdout' }> = [
  { set: 'tuning', type: 'identity', text: 'My name is Jorge and I am a civil engineer.' },
  { set: 'tuning', type: 'identity', text: "I'm a freelance photographer based in Oslo." },
  { set: 'tuning', type: 'identity', text: 'I am a support bot for the Zenbank mobile app.' },
  { set: 'tuning', type: 'identity', text: 'The user is a 52-year-old retired pilot.' },
  { set: 'tuning', type: 'identity', text: 'I grew up in Nairobi and now study medicine.' },
  { set: 'tuning', type: 'identity', text: 'She goes by Kim and uses she/her pronouns.' },
  { set: 'tuning', type: 'identity', text: 'The user is left-handed and colour-blind.' },
  { set: 'tuning', type: 'identity', text: 'I am a data scientist who mostly writes Python.' },

  { set: 'tuning', type: 'fact', text: 'The staging server is at staging.example.com.' },
  { set: 'tuning', type: 'fact', text: 'Mount Everest is 8,849 metres tall.' },
  { set: 'tuning', type: 'fact', text: 'The user prefers answers in bullet points.' },
  { set: 'tuning', type: 'fact', text: 'Invoices are due 30 days after issue.' },
  { set: 'tuning', type: 'fact', text: 'The team uses Jira for tickets and Slack for chat.' },
  { set: 'tuning', type: 'fact', text: 'The Wi-Fi password for the guest network is on the fridge.' },
  { set: 'tuning', type: 'fact', text: 'The user is allergic to peanuts.' },
  { set: 'tuning', type: 'fact', text: 'Our free plan includes 5 GB of storage.' },

  { set: 'tuning', type: 'relationship', text: 'Emma is my sister and lives in Madrid.' },
  { set: 'tuning', type: 'relationship', text: 'Raj is the team lead of Mei and Oscar.' },
  { set: 'tuning', type: 'relationship', text: 'The user is married to Daniel.' },
  { set: 'tuning', type: 'relationship', text: 'Lena and Paul are old friends from the army.' },
  { set: 'tuning', type: 'relationship', text: 'Hannah works for Victor at the design agency.' },
  { set: 'tuning', type: 'relationship', text: "Marco is the user's landlord." },
  { set: 'tuning', type: 'relationship', text: 'My father and my uncle run a bakery together.' },
  { set: 'tuning', type: 'relationship', text: 'Nina mentors two junior developers, Ali and Sue.' },

  { set: 'tuning', type: 'episode', text: 'Yesterday the user and I debugged the payment webhook for two hours.' },
  { set: 'tuning', type: 'episode', text: 'Last Tuesday the server crashed during the demo.' },
  { set: 'tuning', type: 'episode', text: 'Three weeks ago we signed the contract with Globex.' },
  { set: 'tuning', type: 'episode', text: 'In March 2022 the user ran her first marathon.' },
  { set: 'tuning', type: 'episode', text: 'This afternoon the user asked about refund options and seemed upset.' },
  { set: 'tuning', type: 'episode', text: 'We had a long call with the investors and they agreed to extend the runway.' },
  { set: 'tuning', type: 'episode', text: 'After the outage on Sunday, the team wrote a postmortem.' },
  { set: 'tuning', type: 'episode', text: 'The user visited Japan last spring and loved Osaka.' },

  { set: 'tuning', type: 'skill', text: 'How to rotate the API key: open the dashboard, click Keys, then Regenerate.' },
  { set: 'tuning', type: 'skill', text: 'To restart the worker, run systemctl restart worker.service.' },
  { set: 'tuning', type: 'skill', text: 'Step 1: preheat the oven to 200 C. Step 2: bake for 25 minutes.' },
  { set: 'tuning', type: 'skill', text: 'To undo the last commit but keep the changes, use git reset --soft HEAD~1.' },
  { set: 'tuning', type: 'skill', text: 'Always run the linter before opening a pull request.' },
  { set: 'tuning', type: 'skill', text: 'First export the CSV, then import it into the billing tool.' },
  { set: 'tuning', type: 'skill', text: 'You can change the theme by opening Preferences and picking Appearance.' },
  { set: 'tuning', type: 'skill', text: 'Tie a bowline by making a loop, passing the end up through it, around the line and back down.' },

  { set: 'holdout', type: 'identity', text: 'I am Rosa, a backend developer at a logistics company.' },
  { set: 'holdout', type: 'identity', text: 'The user is a single dad of two who works night shifts as a paramedic.' },
  { set: 'holdout', type: 'identity', text: 'You are Lumen, an assistant that helps students learn chemistry.' },
  { set: 'holdout', type: 'identity', text: 'I speak Portuguese natively and I am learning German.' },
  { set: 'holdout', type: 'fact', text: 'The meeting room on floor 3 has a broken projector.' },
  { set: 'holdout', type: 'fact', text: 'Python 3.12 removed the distutils module.' },
  { set: 'holdout', type: 'fact', text: 'The user wants replies in Spanish.' },
  { set: 'holdout', type: 'fact', text: 'Shipping to Canada takes five business days.' },
  { set: 'holdout', type: 'relationship', text: 'Greta is the godmother of my son.' },
  { set: 'holdout', type: 'relationship', text: 'Omar and the user are co-founders of the company.' },
  { set: 'holdout', type: 'relationship', text: 'Julia is dating my best friend Leo.' },
  { set: 'holdout', type: 'relationship', text: 'Peter supervises the night shift nurses, including Ada.' },
  { set: 'holdout', type: 'episode', text: 'On Saturday the user locked herself out and called a locksmith.' },
  { set: 'holdout', type: 'episode', text: 'Earlier today the build broke because of a missing env variable.' },
  { set: 'holdout', type: 'episode', text: 'Last year we lost the Acme account after a pricing dispute.' },
  { set: 'holdout', type: 'episode', text: 'The user told me she had just come back from a funeral.' },
  { set: 'holdout', type: 'skill', text: 'To export a report, open Analytics, choose the date range and click Export.' },
  { set: 'holdout', type: 'skill', text: 'How do I clear the npm cache? Run npm cache clean --force.' },
  { set: 'holdout', type: 'skill', text: 'Before merging, rebase onto main and rerun the tests.' },
  { set: 'holdout', type: 'skill', text: 'Use a sharp knife and cut onions with the root end intact so they make you cry less.' },
];
