/**
 * One small document of each file type RAGFlow's Go ingestion templates cover, and what each
 * should yield once stored: text a chunk must contain (the scripted model's picture description
 * and transcripts included). The old binary formats (.doc, .xls, .ppt) and .msg have no reader
 * here and are not among them.
 */
import { Document, Packer, Paragraph } from 'docx';
import { writeXlsx } from '../../../src/io/text/sheets';
import { textPdf } from '../../helpers/pdf';
import { pptx } from '../../helpers/pptx';

export interface TestDoc {
  name: string;
  body: Uint8Array | string;
  /** Text some stored chunk of the document contains. */
  expect: string;
}

const docx = async (paragraphs: string[]) =>
  new Uint8Array(await Packer.toBuffer(new Document({ sections: [{ children: paragraphs.map((p) => new Paragraph(p)) }] })));

const EML = [
  'From: Ada <ada@example.com>',
  'To: Bob <bob@example.com>',
  'Subject: Warehouse move',
  'Date: Mon, 2 Jun 2025 10:00:00 +0000',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'The spare batteries move to the north warehouse on Friday.',
  '',
].join('\r\n');

/** Documents by the Parser setup type that reads them. */
export async function docsByType(): Promise<Record<string, TestDoc[]>> {
  return {
    markdown: [
      {
        name: 'battery.md',
        body: '# Battery care\n\nStore the spare battery in a cool dry drawer.\n\n## Charging\n\nCharge between twenty and eighty percent.',
        expect: 'cool dry drawer',
      },
    ],
    'text&code': [
      {
        name: 'notes.txt',
        body: 'Chapter 1 Storage\nKeep the cells away from sunlight.\nChapter 2 Charging\nUse the supplied charger only.',
        expect: 'away from sunlight',
      },
    ],
    html: [{ name: 'page.html', body: '<html><body><h1>Returns</h1><p>Returns are accepted within thirty days.</p></body></html>', expect: 'thirty days' }],
    pdf: [
      { name: 'warranty.pdf', body: textPdf(['Warranty claims need the original receipt.', 'Claims are answered within a week.']), expect: 'original receipt' },
    ],
    docx: [{ name: 'manual.docx', body: await docx(['Installation', 'Mount the bracket on a solid wall.']), expect: 'solid wall' }],
    spreadsheet: [
      { name: 'prices.csv', body: 'item,price\ntea,3\ncake,5\n', expect: 'cake' },
      { name: 'stock.xlsx', body: await writeXlsx({ Stock: [{ part: 'bracket', count: 12 }] }), expect: 'bracket' },
    ],
    email: [{ name: 'move.eml', body: EML, expect: 'north warehouse' }],
    slides: [
      {
        name: 'deck.pptx',
        body: pptx([
          ['Quarterly review', 'Revenue grew'],
          ['Next steps', 'Hire two engineers'],
        ]),
        expect: 'Hire two engineers',
      },
    ],
    image: [{ name: 'bike.png', body: new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), expect: 'A red bicycle' }],
    audio: [{ name: 'memo.mp3', body: new Uint8Array([0xff, 0xfb, 0x90, 0x44, 0, 0]), expect: 'Scripted transcript of memo.mp3' }],
    video: [{ name: 'clip.mp4', body: new Uint8Array([0, 0, 0, 24, 102, 116, 121, 112]), expect: 'Scripted transcript of clip.mp4' }],
  };
}

/** Question/answer documents for the QA template, by setup type. */
export async function qaDocs(): Promise<TestDoc[]> {
  return [
    {
      // Plain text is parsed into segments at sentence ends (! ? ; …), as RAGFlow's text parser splits it: a pair stays on one segment.
      name: 'faq.txt',
      body: 'Warranty length\tTwo years\nShipping abroad\tTo the EU',
      expect: '问题：Warranty length\t回答：Two years',
    },
    // The template reads Markdown as JSON items, each read as delimited lines (RAGFlow's Go QAChunker), not by headings.
    { name: 'faq.md', body: '# Shipping\n\nDo you ship abroad?\tYes, to the EU.', expect: '问题：Do you ship abroad?\t回答：Yes, to the EU.' },
    { name: 'faq.csv', body: 'question,answer\nCan I return it?,Within thirty days\n', expect: '问题：Can I return it?\t回答：Within thirty days' },
    { name: 'faq.docx', body: await docx(['Is there a manual?,Yes in the box']), expect: '问题：Is there a manual?\t回答：Yes in the box' },
    { name: 'faq.pdf', body: textPdf(['Who answers support?,The Berlin team']), expect: '问题：Who answers support?\t回答：The Berlin team' },
  ];
}

/** The setup types each template's Parser lists that this build reads (its .doc/.xls/.ppt/.msg suffixes aside). */
export const COVERS: Record<string, string[]> = {
  audio: ['audio'],
  book: ['docx', 'html', 'pdf', 'text&code'],
  email: ['email'],
  general: ['docx', 'html', 'markdown', 'pdf', 'spreadsheet', 'text&code'],
  knowledge_compiler: ['docx', 'html', 'markdown', 'pdf', 'spreadsheet', 'text&code'],
  laws: ['docx', 'html', 'markdown', 'pdf', 'text&code'],
  manual: ['docx', 'pdf'],
  one: ['docx', 'html', 'markdown', 'pdf', 'spreadsheet', 'text&code'],
  paper: ['pdf'],
  picture: ['image', 'video'],
  presentation: ['pdf', 'slides'],
  qa: ['qa'],
  table: ['spreadsheet', 'text&code'],
};
