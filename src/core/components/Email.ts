/**
 * Email: sends an email over SMTP, as a canvas node (recipient, subject and content from its
 * params, usually references) or as an Agent tool (the model writes them). Params follow
 * RAGFlow's EmailParam; the SMTP settings and the password stay on the component, never in the
 * model's arguments.
 */
import { z } from 'zod';
import { executionParamsShape, num, str, paramText } from './common';
import { textInputRefs } from './toolInputs';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const EmailParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    smtp_server: str(''),
    smtp_port: num(465).refine((n) => Number.isInteger(n) && n > 0 && n < 65536, 'smtp_port must be a port number (465 for SSL/TLS, 587 or 25 for STARTTLS)'),
    /** The sender address (and the login, unless `smtp_username` is set). */
    email: str(''),
    smtp_username: str(''),
    /** The SMTP password or authorization code (kept out of workflow history). */
    password: str(''),
    sender_name: str(''),
    // RAGFlow's defaults, `{sys.query}` for the recipient included.
    to_email: str('{sys.query}'),
    cc_email: str(''),
    subject: str(''),
    content: str(''),
  }),
);

export type EmailParams = z.infer<typeof EmailParams>;

export const Email: ComponentDef<EmailParams> = {
  name: 'Email',
  params: EmailParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['success'],
  inputRefs: (p) => textInputRefs(p.to_email, p.cc_email, p.subject, p.content),
  tool: {
    meta: () => ({
      name: 'email',
      description: 'Send an email to one person or to several recipients (CC). The content may be HTML.',
      parameters: {
        to_email: { type: 'string', description: 'The target email address.', default: '{sys.query}', required: true },
        cc_email: { type: 'string', description: 'Other email addresses to send a copy to, separated by commas.', default: '', required: false },
        content: { type: 'string', description: 'The content of the email.', default: '', required: false },
        subject: { type: 'string', description: 'The subject/title of the email.', default: '', required: false },
      },
    }),
  },
  thoughts: (p, ctx) => `To: ${paramText(ctx, p.to_email) || '-'}\nSubject: ${paramText(ctx, p.subject) || '-'}\nYour email is on its way—sit tight!`,
  run: (p, ctx) =>
    runToolNode('Email', ctx, {
      to_email: paramText(ctx, p.to_email),
      cc_email: paramText(ctx, p.cc_email),
      subject: paramText(ctx, p.subject),
      content: paramText(ctx, p.content),
    }),
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
