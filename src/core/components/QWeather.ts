/** QWeather: weather, life indices or air quality for a place, as a canvas node or an Agent tool. Params follow RAGFlow's QWeatherParam. */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const LANGS = [
  'zh',
  'zh-hant',
  'en',
  'de',
  'es',
  'fr',
  'it',
  'ja',
  'ko',
  'ru',
  'hi',
  'th',
  'ar',
  'pt',
  'bn',
  'ms',
  'nl',
  'el',
  'la',
  'sv',
  'id',
  'pl',
  'tr',
  'cs',
  'et',
  'vi',
  'fil',
  'fi',
  'he',
  'is',
  'nb',
] as const;

const QWeatherParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    web_apikey: str('xxx'),
    lang: oneOf('lang', LANGS, 'zh'),
    type: oneOf('type', ['weather', 'indices', 'airquality'], 'weather'),
    user_type: oneOf('user_type', ['free', 'paid'], 'free'),
    time_period: oneOf('time_period', ['now', '3d', '7d', '10d', '15d', '30d'], 'now'),
  }),
);

export type QWeatherParams = z.infer<typeof QWeatherParams>;

export const QWeather = searchComponent<QWeatherParams>({
  name: 'QWeather',
  params: QWeatherParams,
  queryIsInput: true,
  outputs: ['formalized_content'],
  tool: {
    name: 'qweather',
    description: 'QWeather (和风天气) looks up the current weather, a multi-day forecast, life indices, or air quality for a location using the QWeather API.',
    parameters: {
      query: {
        type: 'string',
        description: "The location to look up weather for, e.g. a city name like 'Beijing' or '北京'.",
        default: '{sys.query}',
        required: true,
      },
    },
  },
  thoughts: (p, ctx) => `Looking up the weather for: ${paramText(ctx, p.query)}`,
});
